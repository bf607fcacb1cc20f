/**
 * The server process (main.ts) with a stdout whose reader has gone, as in `rail start | head -1`: it still serves,
 * SIGTERM still stops it with exit 0, and the other ways out (a failed start, an uncaught exception or unhandled
 * rejection) still exit promptly with 1 and the cause on stderr. The log level is info, so the shutdown and the
 * refused requests write their lines to the closed stdout.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { freePort, railEnv, ROOT } from './test-support/server-process';
import { until } from './test-support/until';

const dataDir = mkdtempSync(join(tmpdir(), 'rail-closed-stdout-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Spawned {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  /** Closes the only read end of the server's stdout, as `head -1` exiting does. */
  closeStdout(): void;
  stderr(): string;
  exited: Promise<number | null>;
}

/**
 * The server with its stdout on a named pipe whose read end this test holds: an OS pipe, as in a shell pipeline
 * (spawn's own 'pipe' is a socket pair). Nothing is read: the banner fits in the pipe's buffer.
 */
async function spawnServer(
  name: string,
  // The shutdown's log lines are still being written when it calls process.exit(): see busy-thread-pool-on-sigterm.mjs.
  options: { preload?: string; env?: Record<string, string> } = { preload: 'busy-thread-pool-on-sigterm.mjs' },
): Promise<Spawned> {
  const [port, jsPort] = [await freePort(), await freePort()];
  const fifo = join(dataDir, `${name}.stdout`);
  execFileSync('mkfifo', [fifo]);
  const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeEnd = openSync(fifo, constants.O_WRONLY);
  const preload = options.preload === undefined ? [] : ['--import', `./server/src/test-support/${options.preload}`];
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...railEnv({ port, jsPort, dataDir: join(dataDir, name), logLevel: 'info' }), UV_THREADPOOL_SIZE: '1', ...options.env },
    stdio: ['ignore', writeEnd, 'pipe'],
  });
  closeSync(writeEnd);
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { child, port, baseUrl: `http://127.0.0.1:${port}`, closeStdout: () => closeSync(readEnd), stderr: () => stderr, exited };
}

/**
 * GET /health on a connection that is closed after the answer: a kept-alive connection of the test would make the
 * server's shutdown wait for it, and the shutdown's log line would meet the closed stdout before it ends.
 */
function healthStatus(baseUrl: string): Promise<number> {
  return new Promise((resolveStatus) => {
    get(`${baseUrl}/health`, { agent: false }, (response) => {
      response.resume();
      resolveStatus(response.statusCode ?? 0);
    }).on('error', () => resolveStatus(0));
  });
}

async function waitForHealth(baseUrl: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}):\n${stderr()}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer /health:\n${stderr()}`);
    if ((await healthStatus(baseUrl)) === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A request Node's HTTP parser refuses (an unknown method): the server logs it at info and answers 400. */
function refusedRequest(port: number): Promise<void> {
  return new Promise((resolveDone) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('BOGUS / HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('data', () => {});
    socket.once('close', () => resolveDone());
    socket.once('error', () => resolveDone());
  });
}

/** The exit code, or 'still running' when the process has not exited within `ms`. */
function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'still running'> {
  return Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), ms))]);
}

describe('a server whose stdout reader has gone', () => {
  test('stdout closed after the banner: SIGTERM closes the store and exits 0', async () => {
    const server = await spawnServer('after-banner');
    // The banner is written before /health answers.
    await waitForHealth(server.baseUrl, server.child, server.stderr);
    server.closeStdout();

    server.child.kill('SIGTERM');
    expect(await exitWithin(server.exited, 5_000)).toBe(0);
    expect(server.stderr()).not.toContain('EPIPE');
  }, 40_000);

  test('stdout closed before the banner: the server still starts, serves, and exits 0 on SIGTERM', async () => {
    const server = await spawnServer('before-banner');
    server.closeStdout();
    await waitForHealth(server.baseUrl, server.child, server.stderr);
    expect(await healthStatus(server.baseUrl)).toBe(200);

    server.child.kill('SIGTERM');
    expect(await exitWithin(server.exited, 5_000)).toBe(0);
    expect(server.stderr()).not.toContain('EPIPE');
  }, 40_000);

  // Node's own handling (run.ts installs no handler): the error and its stack on stderr, exit 1. pino flushes what
  // is still queued for stdout when the process exits.
  for (const kind of ['exception', 'rejection'] as const) {
    test(`an unhandled ${kind} after start, with log lines still queued: exits 1 with the ${kind} on stderr`, async () => {
      const gate = join(dataDir, `${kind}.gate`);
      execFileSync('mkfifo', [gate]);
      const server = await spawnServer(`crash-${kind}`, { preload: 'crash-on-sigusr2.mjs', env: { TEST_CRASH_GATE: gate, TEST_CRASH: kind } });
      await waitForHealth(server.baseUrl, server.child, server.stderr);
      server.closeStdout();

      server.child.kill('SIGUSR2');
      await until(() => server.stderr().includes('test: thread pool held'), 'the thread pool is held');
      // The first line's write waits behind the held thread; the other two queue behind it.
      await Promise.all([refusedRequest(server.port), refusedRequest(server.port), refusedRequest(server.port)]);
      let gateWriter: number | undefined;
      await until(() => {
        try {
          // ENXIO until the held thread is opening the gate for reading; then both opens complete.
          gateWriter = openSync(gate, constants.O_WRONLY | constants.O_NONBLOCK);
          return true;
        } catch {
          return false;
        }
      }, 'the held thread opens the gate');
      closeSync(gateWriter as number);

      expect(await exitWithin(server.exited, 5_000)).toBe(1);
      expect(server.stderr()).toContain(`injected ${kind} after start`);
    }, 40_000);
  }

  test('process.exit(1) with log lines queued behind a write in flight, as a failed start after logging: exits 1', async () => {
    const fifo = join(dataDir, 'exit-queued.stdout');
    execFileSync('mkfifo', [fifo]);
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    closeSync(readEnd);
    // The first line's write is in flight and the others queued when process.exit() runs, in the same tick.
    const script = [
      "import { createLogger } from './server/src/logger.ts';",
      "const logger = createLogger('info');",
      "for (let i = 0; i < 3; i += 1) logger.warn({ i }, 'a line before the failure');",
      "process.stderr.write('rail: failed to start: the cause\\n');",
      'process.exit(1);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { cwd: ROOT, stdio: ['ignore', writeEnd, 'pipe'] });
    closeSync(writeEnd);
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

    expect(await exitWithin(exited, 5_000)).toBe(1);
    expect(stderr).toBe('rail: failed to start: the cause\n');
  }, 40_000);

  test('a failed start (the API port taken): exits 1 and says why on stderr', async () => {
    const holder = createServer();
    const takenPort = await new Promise<number>((resolvePort) =>
      holder.listen(0, '127.0.0.1', () => resolvePort((holder.address() as { port: number }).port)),
    );
    try {
      const server = await spawnServer('port-taken', { env: { RAIL_PORT: String(takenPort) } });
      server.closeStdout();
      expect(await exitWithin(server.exited, 20_000)).toBe(1);
      expect(server.stderr()).toContain('rail: failed to start: Error: listen EADDRINUSE');
    } finally {
      holder.close();
    }
  }, 40_000);

  test('a failed start (an invalid RAIL_ variable): exits 1 and names the variable on stderr', async () => {
    const server = await spawnServer('invalid-env', { env: { RAIL_LOG_LEVEL: 'loud' } });
    server.closeStdout();
    expect(await exitWithin(server.exited, 20_000)).toBe(1);
    expect(server.stderr()).toContain('rail: invalid environment: RAIL_LOG_LEVEL');
  }, 40_000);
});
