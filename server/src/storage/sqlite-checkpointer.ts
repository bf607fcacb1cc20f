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
 *
 * A writer starts the WAL over only if every frame had been copied when it began. Under steady load one checkpoint
 * almost never sees that (frames are committed while it syncs), so the WAL grew to the fallback bound and the
 * request connection's own checkpoint ran on the event loop every second or two at half load
 * (docs/benchmarks-reading.md, walcheck). So once the WAL is large, a checkpoint that found new frames is followed at
 * once by another pass, each shorter than the last, until one finds nothing new: the next write then starts the WAL
 * over. Should the WAL still reach restartAtFrames, the worker copies the last frames while the request connection
 * writes nothing (SqliteGroupCommit.whileNoWrites: the open batch is committed first, and statements queue for the
 * connection meanwhile, off the event loop), and writes the first frame of the new WAL itself, so that the sync of
 * its header is not on the event loop either.
 */
import { statSync } from 'node:fs';
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
 * Passes in a row at most per interval. A pass that copies a few pages costs two syncs (the WAL, then the database
 * file), off the event loop and without a lock the request connection waits for.
 */
export const MAX_PASSES = 4;
/**
 * WAL frames from which the worker runs those passes. Below, one pass per interval, as each pass's database-file
 * sync can hold up the group commit's WAL fdatasync behind it (ext4): the WAL is only to start over well before
 * the fallback bound, not as often as possible.
 */
export const PASSES_FROM_FRAMES = 4_000;
/**
 * WAL frames (pages) from which the worker has the request connection hold its writes for a last copy, if its passes
 * have not let the WAL start over by then: below the fallback bound, so that the event loop never runs the
 * checkpoint. Not lower: the held copy's syncs are waited for by every statement (37 ms median, up to 190 ms, on
 * this machine under load, where a threshold of 2,000 frames, twice a second, made the open-loop p99 worse).
 */
export const RESTART_AT_FRAMES = 8_000;
/**
 * The request connection's own automatic checkpoint, in WAL pages (SQLite's default is 1,000). It runs only if the
 * worker has not let the WAL start over by then (a writer starts it over once every frame has been copied).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * WAL bytes from which the request connection's syncs start the worker: SQLite's own default checkpoint threshold
 * (wal_autocheckpoint, 1,000 pages of 4 KB). Below it nothing needs copying back yet, and a store that never writes
 * that much (a first boot: the schema and bootstrap write some 550 KB; a test's store; a quiet deployment; a CLI
 * command) spends no thread, no 10-12 MB of resident memory and no start (20-40 ms of a first boot's main thread) on
 * checkpoints. Under load the WAL reaches it within a second. The request connection's own bound
 * (FALLBACK_AUTOCHECKPOINT_PAGES) is ten times as far, so the worker always starts before that would run.
 */
export const START_AT_WAL_BYTES = 4 * 1024 * 1024;

/**
 * The worker's V8 heap: it only runs pragmas. Its old space holds some 4 MB after Node's own bootstrap (a limit of 4
 * fails at start), so 16 leaves room; the young generation's semi-spaces are what the limit saves (about 1 MB of
 * resident memory: the rest of the worker's 10-12 MB is Node's environment for a thread, not its heap).
 */
const WORKER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 };

/** What one checkpoint reported: SQLite's wal_checkpoint row. */
export interface CheckpointResult {
  /** 1 if the checkpoint could not run (another checkpoint held its lock). */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of those copied into the database file. */
  checkpointed: number;
}

type WorkerMessage = { kind: 'checkpoint' | 'copied'; row: CheckpointResult } | { kind: 'error'; message: string };

// CommonJS, evaluated by the worker: the server is one bundled file, and this is the worker's whole program.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = NORMAL');
const passive = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
// The first write after every frame was copied starts the WAL over, and syncs the new WAL header on its thread.
// Written here, while the request connection holds its writes, that sync is not on the event loop. The write sets
// the database header's user_version to the value it has (unused by Rail): one page, the same bytes. With no busy
// wait: another process writing (two instances on one file) means no restart this time, not a stall.
const restart = db.transaction(() => db.pragma('user_version = ' + db.pragma('user_version', { simple: true })));
let last = { log: -1, checkpointed: -1 };
const report = (message) => parentPort.postMessage(message);
const failed = (error) => report({ kind: 'error', message: String(error && error.message || error) });
const checkpoint = () => {
  try {
    let row = passive();
    let before = last;
    // Again while the last pass found frames committed since the one before, each pass shorter than the last: one
    // that finds none has left every frame copied, and the next write starts the WAL over.
    const passes = row.log >= workerData.passesFromFrames ? workerData.maxPasses : 1;
    for (let pass = 1; pass < passes && row.busy === 0 && row.log > before.log; pass += 1) {
      before = row;
      row = passive();
    }
    if (row.log !== last.log || row.checkpointed !== last.checkpointed) report({ kind: 'checkpoint', row });
    last = row;
  } catch (error) {
    failed(error);
  }
};
/** Sent while the request connection writes nothing; answered once done, which lets the writes go on. */
const copy = () => {
  let row = { busy: 1, log: -1, checkpointed: -1 };
  try {
    row = passive();
    last = row;
    if (row.busy === 0 && row.checkpointed === row.log) restart.immediate();
  } catch (error) {
    if (!error || error.code !== 'SQLITE_BUSY') failed(error);
  }
  report({ kind: 'copied', row });
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'copy') return copy();
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface SqliteCheckpointerOptions {
  intervalMs?: number;
  /** WAL bytes from which noteSync starts the worker (START_AT_WAL_BYTES); 0 starts it at the first sync. */
  startAtWalBytes?: number;
  restartAtFrames?: number;
  onError?: (message: string) => void;
  /** Runs its argument while the request connection writes nothing (SqliteGroupCommit.whileNoWrites). */
  whileNoWrites?: (work: () => Promise<void>) => Promise<void>;
}

/**
 * Started by the request connection's sync that finds the WAL grown to START_AT_WAL_BYTES (noteSync), not at open nor
 * at the first write: a store that is only read, or written little, spends no thread and no V8 heap on it (some
 * 10-12 MB of resident memory), and its WAL is checkpointed when its last connection closes, as SQLite does.
 */
export class SqliteCheckpointer {
  #worker: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  /** Set from the decision to start the WAL over until the copy made for it has answered. */
  #restarting = false;
  /**
   * Set by stop(), for good: a write that still comes to the closing connection (a timer's, after the last sync) must
   * not start a worker that would open the file after its owner has closed it, or removed its directory.
   */
  #stopped = false;
  /** Set while writes are held for the worker's last copy; called on its answer (or on the worker's exit). */
  #copied: (() => void) | undefined;
  /** Checkpoints that copied or found new frames, and the last one's result. */
  checkpoints = 0;
  last: CheckpointResult | undefined;
  readonly #file: string;
  readonly #intervalMs: number;
  readonly #startAtWalBytes: number;
  readonly #restartAtFrames: number;
  readonly #onError: (message: string) => void;
  readonly #whileNoWrites: ((work: () => Promise<void>) => Promise<void>) | undefined;

  constructor(file: string, options: SqliteCheckpointerOptions = {}) {
    this.#file = file;
    this.#intervalMs = options.intervalMs ?? CHECKPOINT_INTERVAL_MS;
    this.#startAtWalBytes = options.startAtWalBytes ?? START_AT_WAL_BYTES;
    this.#restartAtFrames = options.restartAtFrames ?? RESTART_AT_FRAMES;
    this.#onError = options.onError ?? (() => {});
    this.#whileNoWrites = options.whileNoWrites;
  }

  get started(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * Called before each sync of the request connection: starts the worker once the WAL file has grown to
   * startAtWalBytes. Until then a stat of the WAL per sync; none once the worker runs.
   */
  noteSync(): void {
    if (this.#worker !== undefined || this.#stopped) return;
    if (this.#startAtWalBytes > 0 && (statSync(`${this.#file}-wal`, { throwIfNoEntry: false })?.size ?? 0) < this.#startAtWalBytes) return;
    this.#start();
  }

  #start(): void {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.#file, intervalMs: this.#intervalMs, maxPasses: MAX_PASSES, passesFromFrames: PASSES_FROM_FRAMES, sqliteModule: createRequire(import.meta.url).resolve('better-sqlite3') },
      resourceLimits: WORKER_RESOURCE_LIMITS,
    });
    // The server's lifetime is not the worker's to hold: a process that is done exits (and SQLite is crash-safe).
    worker.unref();
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'error') return this.#onError(message.message);
      this.checkpoints += 1;
      this.last = message.row;
      if (message.kind === 'copied') return this.#copied?.();
      if (message.row.log >= this.#restartAtFrames && !this.#restarting) void this.#restartWal(worker);
    });
    worker.on('error', (error) => this.#onError(String(error)));
    this.#exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.#copied?.();
        resolve();
      }),
    );
    this.#worker = worker;
  }

  /** Has the worker copy the last frames while the request connection writes nothing. */
  async #restartWal(worker: Worker): Promise<void> {
    const whileNoWrites = this.#whileNoWrites ?? ((work: () => Promise<void>) => work());
    const copy = () =>
      new Promise<void>((resolve) => {
        // Stopped while waiting for the connection: no answer would come.
        if (this.#worker !== worker) return resolve();
        this.#copied = resolve;
        worker.postMessage('copy');
      });
    this.#restarting = true;
    try {
      await whileNoWrites(copy);
    } catch (error) {
      this.#onError(String(error));
    } finally {
      this.#copied = undefined;
      this.#restarting = false;
    }
  }

  /**
   * Stops the timer and closes the worker's connection (before the request connection closes). Final: no worker
   * starts after it.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    // Unreferenced, the worker would not keep the process alive until its exit: a script that closes the database
    // and has nothing else pending would end here, with its close unfinished (exit code 13 under a top-level await).
    worker.ref();
    worker.postMessage('stop');
    await this.#exited;
  }
}
