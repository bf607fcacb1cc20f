/**
 * The server process (main.ts) with a stdout whose reader has gone, as in `rail start | head -1`: it still serves,
 * and SIGTERM still stops it with exit 0. The log level is info, so the shutdown writes its lines to the closed
 * stdout.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { freePort, railEnv, ROOT } from './test-support/server-process';

const dataDir = mkdtempSync(join(tmpdir(), 'rail-closed-stdout-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Spawned {
  child: ChildProcess;
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
async function spawnServer(name: string): Promise<Spawned> {
  const [port, jsPort] = [await freePort(), await freePort()];
  const fifo = join(dataDir, `${name}.stdout`);
  execFileSync('mkfifo', [fifo]);
  const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeEnd = openSync(fifo, constants.O_WRONLY);
  // The shutdown's log lines are still being written when it calls process.exit(): see busy-thread-pool-on-sigterm.mjs.
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './server/src/test-support/busy-thread-pool-on-sigterm.mjs', 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...railEnv({ port, jsPort, dataDir: join(dataDir, name), logLevel: 'info' }), UV_THREADPOOL_SIZE: '1' },
    stdio: ['ignore', writeEnd, 'pipe'],
  });
  closeSync(writeEnd);
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { child, baseUrl: `http://127.0.0.1:${port}`, closeStdout: () => closeSync(readEnd), stderr: () => stderr, exited };
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
});
