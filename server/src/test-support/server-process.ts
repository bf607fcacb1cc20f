/**
 * The real server (main.ts) as a child process for black-box tests and benchmarks: free loopback ports, a data
 * directory, fixed test keys, optional DATABASE_URL. Used by crash.test.ts, multi-instance.test.ts and bench/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../../..');
/** Fixed test keys (the spec's shape), so every process on one database shares them. */
export const FIXED_SECRET_KEY = `rail_full_test_${'S3cr3tKeyForCrashAndBenchTests0'.padEnd(40, 'x')}`;
export const FIXED_PUBLISHABLE_KEY = `rail_open_test_${'PubKeyForCrashAndBenchTests0000'.padEnd(40, 'y')}`;

/**
 * A loopback port below the kernel's ephemeral range, free when checked. A port from listen(0) comes from the range
 * that outgoing connections draw from too (this process's own, to PostgreSQL, to webhook receivers), so another
 * connection could take it before the child listens on it; one below that range only another freePort() could.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await drawFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free port that this process has not handed out already');
}

const PORTS_FROM = 20_000;

/**
 * Ports this process has handed out. A port is free again as soon as its check closes, so two calls in a row (a
 * server's API and js ports) could draw the same one, from the range below or from listen(0), and the child would
 * then fail its second listen.
 */
const handedOut = new Set<number>();

async function drawFreePort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below === undefined) return listenOn(0);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORTS_FROM + Math.floor(Math.random() * (below - PORTS_FROM));
    const taken = await listenOn(port).then(() => false, (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') return true;
      throw error;
    });
    if (!taken) return port;
  }
  return listenOn(0);
}

/** The first port of Linux's ephemeral range, when it leaves room below it for freePort(). */
function ephemeralRangeStart(): number | undefined {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > PORTS_FROM + 1_000 ? first : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any) and closes again; resolves the port that was bound. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(bound));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  output(): string;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  logLevel?: string;
  /** Extra environment (e.g. RAIL_WEBHOOK_URL); applied last. */
  env?: Record<string, string>;
  /** `compiled`: dist/server/main.js as production runs it (build it first); default: the sources through tsx. */
  entry?: 'source' | 'compiled';
}

/** The environment of a Rail process on loopback ports with the fixed test keys. */
export function railEnv(options: { port: number; jsPort: number; dataDir: string; databaseUrl?: string | undefined; logLevel?: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    RAIL_HOST: '127.0.0.1',
    RAIL_PORT: String(options.port),
    RAIL_JS_PORT: String(options.jsPort),
    RAIL_DATA_DIR: options.dataDir,
    RAIL_LOG_LEVEL: options.logLevel ?? 'warn',
    RAIL_TEST_SECRET_KEY: FIXED_SECRET_KEY,
    RAIL_TEST_PUBLISHABLE_KEY: FIXED_PUBLISHABLE_KEY,
    DATABASE_URL: options.databaseUrl ?? '',
  };
}

export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const [port, jsPort] = [await freePort(), await freePort()];
  const args = options.entry === 'compiled' ? ['dist/server/main.js'] : ['--import', 'tsx', 'server/src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...railEnv({ port, jsPort, dataDir: options.dataDir, databaseUrl: options.databaseUrl, logLevel: options.logLevel ?? 'warn' }), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const deadline = Date.now() + 30_000;
  while (!output.includes('demo checkout')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`main.ts exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`main.ts did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface ApiResult {
  status: number;
  body: Record<string, unknown>;
}

/** One JSON call with the fixed secret key (or the key given). */
export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResult> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'api-key': FIXED_SECRET_KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
