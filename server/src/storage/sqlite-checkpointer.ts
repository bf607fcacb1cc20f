/**
 * WAL checkpoints for SQLite on a worker thread with its own connection, instead of on the event loop.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses wal_autocheckpoint pages, on the thread that
 * committed: it syncs the WAL, copies the pages back into the database file and syncs that, 10-100 ms on this
 * machine's disk, during which no request moves (docs/benchmarks-reading.md, half-load latency). Here the request
 * connection keeps only a far larger automatic threshold, as a bound on the WAL should the worker fall behind, and a
 * worker runs PASSIVE checkpoints on a timer. A PASSIVE checkpoint takes no lock that the request connection waits
 * on. Its connection runs with synchronous=NORMAL, under which SQLite syncs the WAL before copying and the database
 * file after, before it marks the WAL frames as copied; only then may the next writer start the WAL over. So a
 * checkpoint here is as durable as one on the request connection, and a crash in the middle leaves what any
 * interrupted checkpoint leaves: a WAL that the next open replays.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoint every this many ms (a PASSIVE checkpoint with nothing to copy only reads the WAL index). Short, because
 * a checkpoint's cost is its database-file sync, and on ext4 the group commit's WAL fdatasync waits behind it: at
 * 1 s a checkpoint copied up to 40 MB written at peak load, and its sync stalled every acknowledgement for up to
 * 1.8 s (half-load p99 1.2 s in one bench run; 100 ms: max 40-140 ms in the same A/B). The price is more WAL
 * restarts, each a sync of the new WAL header on the writer's thread, the event loop (some 0.3 ms).
 */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * The request connection's own automatic checkpoint, in WAL pages (SQLite's default is 1,000). It runs only if the
 * worker has not let the WAL start over by then (a writer starts it over once every frame has been copied).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/** What one checkpoint reported: SQLite's wal_checkpoint row. */
export interface CheckpointResult {
  /** 1 if the checkpoint could not run (another checkpoint held its lock). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of those copied into the database file. */
  checkpointed: number;
}

// CommonJS, evaluated by the worker: the server is one bundled file, and this is the worker's whole program.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file);
db.pragma('synchronous = NORMAL');
let last = { log: -1, checkpointed: -1 };
const checkpoint = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    if (row.log !== last.log || row.checkpointed !== last.checkpointed) parentPort.postMessage({ kind: 'checkpoint', row });
    last = row;
  } catch (error) {
    parentPort.postMessage({ kind: 'error', message: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Started by the first commit that needs a sync (start()), not at open: an idle server, and every database opened
 * only to read or migrate nothing (a CLI command, a restart on an existing store), spends no thread and no V8 heap on
 * it (some 15 MB of resident memory).
 */
export class SqliteCheckpointer {
  #worker: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** Checkpoints that copied or found new frames, and the last one's result. */
  checkpoints = 0;
  last: CheckpointResult | undefined;
  readonly #file: string;
  readonly #intervalMs: number;
  readonly #onError: (message: string) => void;

  constructor(file: string, options: { intervalMs?: number; onError?: (message: string) => void } = {}) {
    this.#file = file;
    this.#intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.#onError = options.onError ?? (() => {});
  }

  get started(): boolean {
    return this.#worker !== undefined;
  }

  /** Starts the worker if it is not running. */
  start(): void {
    if (this.#worker !== undefined) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.#file, intervalMs: this.#intervalMs, sqliteModule: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    // The server's lifetime is not the worker's to hold: a process that is done exits (and SQLite is crash-safe).
    worker.unref();
    worker.on('message', (message: { kind: 'checkpoint'; row: CheckpointResult } | { kind: 'error'; message: string }) => {
      if (message.kind === 'checkpoint') {
        this.checkpoints += 1;
        this.last = message.row;
      } else this.#onError(message.message);
    });
    worker.on('error', (error) => this.#onError(String(error)));
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    this.#worker = worker;
  }

  /** Stops the timer and closes the worker's connection (before the request connection closes). */
  async stop(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    worker.postMessage('stop');
    await this.#exited;
  }
}
