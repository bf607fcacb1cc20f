/**
 * The harness of the bench's tracing tools (bench/syscalls.ts, bench/native-profile.ts): the compiled server with
 * production's command line, on SQLite in a temporary directory or on PostgreSQL at DATABASE_URL (whose own processes
 * are not traced), warmed on both paths, then windows of create+confirm at a fixed rate, without and with an
 * Idempotency-Key in turn, each under a tracer process that attaches to the server and stops on SIGINT. A fixed rate
 * makes a count per call comparable between the two kinds of window. Never part of the test run.
 */
import type { ChildProcess } from 'node:child_process';
import { runChain } from './load';
import { bootServer, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, tempDir } from './process-metrics';
import { FIXED_SECRET_KEY } from '../server/src/test-support/server-process';

export interface TracedWindow {
  keyed: boolean;
  /** API calls served in the window (the fixed rate may not be reached under a tracer). */
  calls: number;
}

export interface TracedServer {
  pid: number;
  /** The server's data directory (SQLite's files), to name the files of its descriptors. */
  dataDir: string;
}

export interface TracedWindowsOptions<T> {
  rate: number;
  seconds: number;
  pairs: number;
  /** Node flags for the server beside production's (`--perf-basic-prof`, say). */
  nodeFlags?: string[];
  /** How long a tracer takes to attach: a window that began meanwhile would count part of its calls. */
  attachMs: number;
  /** Starts the tracer of window `index`; it is stopped with SIGINT at the end of the window. */
  startTracer(server: TracedServer, window: { keyed: boolean; index: number }): ChildProcess;
  /** What the stopped tracer recorded, read while the server still runs. */
  collect(server: TracedServer, window: TracedWindow & { index: number }): T;
}

export interface TracedWindowsResult<T> {
  entry: string;
  engine: 'SQLite' | 'PostgreSQL';
  plain: T[];
  keyed: T[];
}

/** Boots the server, runs `pairs` pairs of windows (plain, then keyed) under the tracer, and stops the server. */
export async function runTracedWindows<T>(options: TracedWindowsOptions<T>): Promise<TracedWindowsResult<T>> {
  const dataDir = tempDir('rail-traced-');
  const databaseUrl = process.env['DATABASE_URL'];
  const entry = process.env['BENCH_SERVER_ENTRY'] ?? 'dist/server/main.js';
  const booted = await bootServer([...PRODUCTION_NODE_FLAGS, ...(options.nodeFlags ?? []), entry], {
    dataDir: dataDir.path,
    databaseUrl,
    env: { ...PRODUCTION_ENV },
  });
  const server: TracedServer = { pid: booted.child.pid as number, dataDir: dataDir.path };
  const result: TracedWindowsResult<T> = { entry, engine: databaseUrl ? 'PostgreSQL' : 'SQLite', plain: [], keyed: [] };
  try {
    // Both paths warmed (V8's optimized code, the statements' caches, the tables' first pages) before anything is counted.
    await runChain(booted.baseUrl, { connections: 16, seconds: 4, apiKey: FIXED_SECRET_KEY });
    await runChain(booted.baseUrl, { connections: 16, seconds: 3, apiKey: FIXED_SECRET_KEY, idempotency: true });
    let index = 0;
    for (let pair = 0; pair < options.pairs; pair += 1) {
      for (const keyed of [false, true]) {
        const tracer = options.startTracer(server, { keyed, index });
        const stopped = new Promise((resolveExit) => tracer.once('exit', resolveExit));
        await new Promise((resolveWait) => setTimeout(resolveWait, options.attachMs));
        const chain = await runChain(booted.baseUrl, {
          connections: 16,
          seconds: options.seconds,
          apiKey: FIXED_SECRET_KEY,
          idempotency: keyed,
          overallRate: options.rate,
        });
        tracer.kill('SIGINT');
        await stopped;
        result[keyed ? 'keyed' : 'plain'].push(options.collect(server, { keyed, calls: chain.calls, index }));
        index += 1;
      }
    }
    return result;
  } finally {
    await booted.stop();
    dataDir.remove();
  }
}

/** `[rate, seconds, pairs]` from the command line, with the tools' defaults. */
export function windowArguments(argv: string[]): [rate: number, seconds: number, pairs: number] {
  return [600, 5, 2].map((fallback, index) => Number(argv[index + 2] ?? fallback)) as [number, number, number];
}
