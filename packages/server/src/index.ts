/**
 * @rail/server: an embeddable Rail test server. `startRail()` starts the whole server (API, runtime script and
 * hosted frame, simulators) on SQLite in a temporary directory, in this process or as a child process running the
 * package's compiled CLI, and resolves once both listeners answer.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../../server/src/config';
import { createLogger } from '../../../server/src/logger';
import { startServer } from '../../../server/src/start';
import { assetPaths } from './assets';
import { DEFAULT_TEST_ACCOUNT } from './default-account';
import type { RunningRail, StartRail, StartRailOptions } from './types';

export type { RunningRail, StartRail, StartRailOptions } from './types';
export { DEFAULT_TEST_ACCOUNT } from './default-account';

/**
 * Where a temporary data directory goes: /dev/shm when there is a writable one (memory: SQLite's migrations and
 * commits do not wait for a disk, which makes the start 2-3 times faster), else the system's temporary directory.
 */
function temporaryBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** The RAIL_* environment of a server started with these options in `dataDir`. */
async function environment(options: StartRailOptions, dataDir: string, defaultLogLevel: string): Promise<Record<string, string>> {
  let accountConfig: string;
  if (typeof options.accountConfig === 'string') accountConfig = options.accountConfig;
  else {
    accountConfig = join(dataDir, 'account-config.json');
    await writeFile(accountConfig, `${JSON.stringify(options.accountConfig ?? DEFAULT_TEST_ACCOUNT, null, 2)}\n`);
  }
  const env: Record<string, string> = {
    RAIL_HOST: options.host ?? '127.0.0.1',
    RAIL_PORT: String(options.port ?? 0),
    RAIL_JS_PORT: String(options.jsPort ?? 0),
    RAIL_DATA_DIR: dataDir,
    RAIL_ACCOUNT_CONFIG: accountConfig,
    RAIL_LOG_LEVEL: options.logLevel ?? defaultLogLevel,
  };
  if (options.secretKey !== undefined) env.RAIL_TEST_SECRET_KEY = options.secretKey;
  if (options.publishableKey !== undefined) env.RAIL_TEST_PUBLISHABLE_KEY = options.publishableKey;
  if (options.webhookUrl !== undefined) env.RAIL_WEBHOOK_URL = options.webhookUrl;
  if (options.webhookSecret !== undefined) env.RAIL_WEBHOOK_SECRET = options.webhookSecret;
  return { ...env, ...options.env };
}

async function startInProcess(options: StartRailOptions, dataDir: string, cleanup: () => Promise<void>): Promise<RunningRail> {
  const env = await environment(options, dataDir, 'error');
  // Only the options: the embedding process's own RAIL_* or DATABASE_URL do not leak into a hermetic test server.
  const config = loadConfig(env);
  const paths = assetPaths();
  const running = await startServer({ config, logger: createLogger(config.logLevel, process.stderr), distDir: paths.distDir, demoPagePaths: paths.demoPagePaths });
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: running.baseUrl,
    jsUrl: running.jsUrl,
    secretKey: running.secretKey,
    publishableKey: running.publishableKey,
    dataDir,
    stop: () => (stopped ??= running.stop().then(cleanup)),
  };
}

interface ReadyLine {
  rail: 'ready';
  base_url: string;
  js_url: string;
  secret_key: string;
  publishable_key: string;
}

async function startChildProcess(options: StartRailOptions, dataDir: string, cleanup: () => Promise<void>): Promise<RunningRail> {
  const env = await environment(options, dataDir, 'info');
  const paths = assetPaths();
  const child = spawn(process.execPath, [...paths.cli.args, 'start', '--ready-json'], {
    cwd: paths.cli.cwd,
    env: { ...process.env, DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise<ReadyLine>((resolveReady, reject) => {
    lines.on('line', (line) => {
      if (!line.startsWith('{"rail":"ready"')) return;
      resolveReady(JSON.parse(line) as ReadyLine);
    });
    void exited.then((code) => reject(new Error(`rail: the server process exited (${code}) before it was ready\n${stderr.join('')}`)));
    child.once('error', reject);
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await cleanup();
    throw error;
  });
  // The child's log lines keep coming on stdout: keep reading, so its pipe never fills up.
  lines.on('line', () => undefined);
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: ready.base_url,
    jsUrl: ready.js_url,
    secretKey: ready.secret_key,
    publishableKey: ready.publishable_key,
    dataDir,
    pid: child.pid,
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        await cleanup();
      })()),
  };
}

/** Starts a Rail test server (see StartRailOptions) and resolves once it answers. */
export const startRail: StartRail = async (options = {}) => {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(temporaryBase(), 'rail-')));
  // A process that exits without stop() (process.exit() in a signal handler, a test runner ending) still removes
  // the temporary directory (SIGKILL cannot be helped).
  const onExit = () => rmSync(dataDir, { recursive: true, force: true });
  if (temporary) process.once('exit', onExit);
  const cleanup = async () => {
    if (!temporary) return;
    process.off('exit', onExit);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.mode === 'child-process') return await startChildProcess(options, dataDir, cleanup);
    return await startInProcess(options, dataDir, cleanup);
  } catch (error) {
    await cleanup();
    throw error;
  }
};
