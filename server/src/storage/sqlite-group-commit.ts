/**
 * Group commit for SQLite: one fsync acknowledges every transaction that committed since the last one, and that
 * fsync runs off the event loop.
 *
 * A logical transaction (Store.transaction) is a SAVEPOINT inside one open database transaction, the batch; RELEASE
 * ends it, and the batch COMMITs at the next turn of the event loop when no logical transaction is in progress, or,
 * while a sync runs, as soon as that sync ends (what it would commit earlier waits for the next sync anyway). The
 * connection runs with synchronous=NORMAL, so COMMIT only writes the WAL; durability comes from an fdatasync of the
 * WAL file on libuv's thread pool (the same sync synchronous=FULL would do inside COMMIT, on the event loop's
 * thread, where under load it was most of what a payment cost: docs/benchmarks-reading.md). One sync covers every
 * batch committed before it started; batches committed while it runs wait for the next one. Store.transaction
 * resolves only after a sync that covers its batch, so nothing is acknowledged before it is durable; a crash or a
 * power loss loses only transactions nobody was told about. A logical transaction that fails rolls back to its
 * savepoint and leaves the batch intact.
 *
 * A write outside a logical transaction (a single statement) joins the open batch, or opens one while a sync runs, or
 * else autocommits (so an idle server holds the write lock only while a statement runs, and another process's
 * connection to the file waits at most for one sync; another connection of this process has the batch committed
 * before it writes, peersByFile); either way its caller resumes only after a sync covers it, as a
 * transaction's does. A write whose SQL ends with NO_DURABLE_WAIT (the Idempotency-Key claim and answer, the rail
 * ledger's write) never autocommits: its caller resumes at once, and it opens a batch if none is open, so that the
 * writes of the same turn of the event loop commit with it (its caller waits for writtenSoFarDurable() before it
 * answers, where that matters). Reads may see a logical transaction's writes before its batch is durable (one
 * connection); what they answer is never acknowledged as a write of theirs.
 */
import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database as SqliteHandle } from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase, type SqliteDialectConfig } from 'kysely';
import { allRowObjects, iterateRowObjects } from './sqlite-row-objects';

interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/** Makes everything committed so far durable. */
export type SyncCommitted = () => Promise<void>;

/**
 * fdatasync of the database's WAL file (where a WAL-mode COMMIT writes), on the thread pool. The directory is synced
 * once, so that the WAL file's own entry survives a power loss (what SQLite does when it creates the file).
 */
export function walSync(sqlite: SqliteHandle): SyncCommitted {
  if (sqlite.memory) return () => Promise.resolve();
  let fd: number | undefined;
  return () => {
    if (fd === undefined) {
      fd = openSync(`${sqlite.name}-wal`, 'r');
      const directory = openSync(dirname(sqlite.name), 'r');
      try {
        fsyncSync(directory);
      } finally {
        closeSync(directory);
      }
    }
    const handle = fd;
    return new Promise<void>((resolve, reject) => fdatasync(handle, (error) => (error ? reject(error) : resolve())));
  };
}

/**
 * Ends the SQL of a single write whose caller goes on once it ran (in the open batch, which it opens if need be, and
 * so visible to every later statement of this connection; committed at the end of the turn of the event loop)
 * instead of after the sync that covers it: the Idempotency-Key claim. The caller must wait for
 * writtenSoFarDurable() before it acknowledges anything that depends on the write. The WAL is appended in order, so
 * the sync that makes any later write durable covers it too. (A comment: SQLite and PostgreSQL ignore it; on
 * PostgreSQL, and inside a transaction, the write waits as it always does.)
 */
export const NO_DURABLE_WAIT = '/* rail: no durable wait */';

/**
 * The group commits of this process by database file. A batch kept open while a sync runs holds the file's write
 * lock; another connection of the same process that waited for it would block the thread that ends the sync (SQLite's
 * busy wait sleeps), so before it writes it has its peers commit what they hold. Other processes wait a sync at most.
 */
const peersByFile = new Map<string, Set<SqliteGroupCommit>>();

export class SqliteGroupCommit {
  #batchOpen = false;
  /** The batch now open (or the next one); ids of committed batches are below it. */
  #batchId = 0;
  #activeTransactions = 0;
  #flushScheduled = false;
  /** Set when a statement that writes runs outside a logical transaction: in the open batch, or on its own. */
  #singleWrite: 'in-batch' | 'autocommit' | undefined;
  /** That write's caller does not wait for its sync (NO_DURABLE_WAIT). */
  #singleWriteWaits = true;
  /** The last batch committed, and the last one a finished sync covers. */
  #committedThrough = -1;
  #durableThrough = -1;
  #syncing: Promise<void> | undefined;
  /** Set when a sync failed: what was committed may not be on disk, so no later write is acknowledged either. */
  #syncError: unknown;
  readonly #batches = new Map<number, Batch>();
  /** Batches whose COMMIT failed, for callers that ask after the fact. */
  readonly #failed = new Map<number, unknown>();
  /** COMMITs so far, and the syncs that made them durable (one sync covers one or more COMMITs). */
  commits = 0;
  syncs = 0;
  /** The driver's hold of the connection (GroupCommitSqliteDriver), once Kysely has made it. */
  #holdConnection: (<T>(work: () => Promise<T>) => Promise<T>) | undefined;
  /** Told when this connection holds no uncommitted write any more (storage/sqlite-table-watch.ts). */
  #onSettled: (() => void) | undefined;

  constructor(
    private readonly sqlite: SqliteHandle,
    private readonly syncCommitted: SyncCommitted = walSync(sqlite),
  ) {
    if (sqlite.memory) return;
    let peers = peersByFile.get(sqlite.name);
    if (peers === undefined) peersByFile.set(sqlite.name, (peers = new Set()));
    peers.add(this);
  }

  /** Has the other connections of this process to the same file commit their open batches (see peersByFile). */
  #commitPeers(): void {
    const peers = peersByFile.get(this.sqlite.name);
    if (peers === undefined || peers.size < 2) return;
    for (const peer of peers) if (peer !== this) peer.flush(true);
  }

  /**
   * A statement about to run. One that writes (is not read-only: `insert ... returning` writes too) outside a logical
   * transaction joins the open batch, or autocommits when none is open (holding the write lock only while it runs);
   * either way its caller waits for a sync that covers it (released()). A write marked NO_DURABLE_WAIT opens a batch
   * instead of autocommitting.
   */
  noteStatement(readonly: boolean, sql = ''): void {
    if (readonly || this.#activeTransactions > 0) return;
    if (!this.#batchOpen) this.#commitPeers();
    this.#singleWriteWaits = !sql.endsWith(NO_DURABLE_WAIT);
    // While a sync runs, an autocommit would be one more COMMIT waiting for the same next sync as the open batch.
    // A write nobody waits for is followed in the same turn by others (a claim by its operation; the answers that one
    // sync released, by each other): alone, each autocommit wrote its pages to the WAL once more (A/B with a key on
    // every call: 0.88x and 0.95x CPU per call, docs/benchmarks-reading.md, twenty-third session).
    if (this.#syncing !== undefined || !this.#singleWriteWaits) this.#openBatch();
    this.#singleWrite = this.#batchOpen ? 'in-batch' : 'autocommit';
  }

  /** Resolves once everything written so far is durable; rejects if a COMMIT or sync it depends on failed. */
  writtenSoFarDurable(): Promise<void> {
    return this.durable(this.#batchOpen ? this.#batchId : this.#committedThrough);
  }

  #openBatch(): void {
    if (this.#batchOpen) return;
    this.#commitPeers();
    this.sqlite.exec('BEGIN IMMEDIATE');
    this.#batchOpen = true;
  }

  beginTransaction(): void {
    this.#openBatch();
    this.#activeTransactions += 1;
  }

  endTransaction(): void {
    this.#activeTransactions -= 1;
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.flush();
      // What autocommitted without waiting (released) and found no batch to commit with.
      this.#startSync();
    });
  }

  /** The batch the running logical transaction belongs to. */
  currentBatch(): number {
    return this.#batchId;
  }

  /** Resolves once batch `id` is committed and synced (durable); rejects if its COMMIT or a sync failed. */
  durable(id: number): Promise<void> {
    if (this.#failed.has(id)) return Promise.reject(this.#failed.get(id));
    if (this.#syncError !== undefined) return Promise.reject(this.#syncError);
    // Nothing was written under an id that is neither open nor committed.
    if (id <= this.#durableThrough || (id === this.#batchId && !this.#batchOpen)) return Promise.resolve();
    let batch = this.#batches.get(id);
    if (batch === undefined) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      batch = { promise, resolve, reject };
      this.#batches.set(id, batch);
    }
    return batch.promise;
  }

  /**
   * Connection released. A single write since the last release returns the batch id to wait on: the open batch's,
   * whose COMMIT and sync it joins like a transaction, or, for an autocommitted write, an id of its own that the
   * next sync covers. Otherwise undefined.
   */
  released(): number | undefined {
    if (!this.#batchOpen) this.#onSettled?.();
    const write = this.#singleWrite;
    if (write === undefined) return undefined;
    this.#singleWrite = undefined;
    const waits = this.#singleWriteWaits;
    // (A batch opened since an autocommit would cover it too: its sync comes after.)
    if (write === 'in-batch' || this.#batchOpen) {
      this.#scheduleFlush();
      return waits ? this.#batchId : undefined;
    }
    // Committed already (autocommit, which writes the WAL without a sync; only a write whose caller waits for it):
    // its id takes the place of a batch.
    const id = this.#batchId;
    this.#batchId += 1;
    this.#committedThrough = id;
    this.#startSync();
    return id;
  }

  /**
   * Commits the open batch unless a logical transaction is in progress (its end schedules the next try) or a sync
   * runs: what commits now waits for the next sync anyway, so the batch stays open and takes in more until that
   * sync ends, and one COMMIT writes the WAL pages they share once instead of once each. `now` commits even then.
   */
  flush(now = false): void {
    if (!this.#batchOpen || this.#activeTransactions > 0 || (this.#syncing !== undefined && !now)) return;
    const id = this.#batchId;
    this.#batchOpen = false;
    this.#batchId += 1;
    try {
      this.sqlite.exec('COMMIT');
      this.commits += 1;
      this.#onSettled?.();
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      this.#onSettled?.();
      this.#failed.set(id, error);
      if (this.#failed.size > 100) this.#failed.delete(this.#failed.keys().next().value as number);
      const batch = this.#batches.get(id);
      this.#batches.delete(id);
      batch?.reject(error);
      return;
    }
    this.#committedThrough = id;
    this.#startSync();
  }

  /** One sync at a time; a sync covers the batches committed before it started. */
  #startSync(): void {
    if (this.#syncing !== undefined || this.#durableThrough >= this.#committedThrough || this.#syncError !== undefined) return;
    const through = this.#committedThrough;
    const settled = (error?: unknown) => {
      this.#syncing = undefined;
      if (error !== undefined) this.#syncError = error;
      else {
        this.syncs += 1;
        this.#durableThrough = through;
      }
      // After a failed sync nothing becomes durable again: batches committed while it ran, and the open one, are
      // refused now rather than left waiting for a sync that will never start.
      this.#settle(error === undefined ? through : Number.POSITIVE_INFINITY, error);
      this.flush();
      this.#startSync();
    };
    let started: Promise<void>;
    try {
      started = this.syncCommitted();
    } catch (error) {
      started = Promise.reject(error);
    }
    this.#syncing = started.then(() => settled(), (error: unknown) => settled(error ?? new Error('WAL sync failed')));
  }

  /** Resolves (or rejects with `error`) every waiting batch up to `through`. */
  #settle(through: number, error?: unknown): void {
    for (const [id, batch] of this.#batches) {
      if (id > through) continue;
      this.#batches.delete(id);
      if (error === undefined) batch.resolve();
      else batch.reject(error);
    }
  }

  /** Calls `listener` whenever this connection has just committed or rolled back all it wrote. */
  onWritesSettled(listener: () => void): void {
    this.#onSettled = listener;
  }

  /** Set by the driver: runs `work` holding the connection, which every statement waits for. */
  useConnectionHold(hold: <T>(work: () => Promise<T>) => Promise<T>): void {
    this.#holdConnection = hold;
  }

  /**
   * Runs `work` while this connection writes nothing: the open batch is committed first, and every statement
   * waits for the connection until `work` is done (in a queue, not on the event loop). The checkpoint worker copies
   * the last WAL frames then, so that the next write finds the whole WAL copied and starts it over
   * (storage/sqlite-checkpointer.ts).
   */
  whileNoWrites<T>(work: () => Promise<T>): Promise<T> {
    if (this.#holdConnection === undefined) return work();
    return this.#holdConnection(() => {
      this.flush(true);
      return work();
    });
  }

  /** Commits the open batch and waits until everything committed is durable (before closing the connection). */
  async drain(): Promise<void> {
    this.flush(true);
    while (this.#syncing !== undefined) await this.#syncing;
    peersByFile.get(this.sqlite.name)?.delete(this);
  }
}

const SAVEPOINT = 'rail_tx';
/** The savepoint's statements, made once: CompiledQuery.raw freezes a new query with a new random id at each call. */
const BEGIN_SAVEPOINT = CompiledQuery.raw(`savepoint ${SAVEPOINT}`);
const RELEASE_SAVEPOINT = CompiledQuery.raw(`release ${SAVEPOINT}`);
const ROLLBACK_TO_SAVEPOINT = CompiledQuery.raw(`rollback to ${SAVEPOINT}`);

/** One statement on the connection, as Kysely's own SQLite connection runs it (synchronously). */
function executeOn(database: SqliteDatabase, query: CompiledQuery): QueryResult<unknown> {
  const statement = database.prepare(query.sql);
  if (statement.reader) return { rows: allRowObjects(statement, query.parameters) };
  const { changes, lastInsertRowid } = statement.run(query.parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * Kysely's SQLite driver with logical transactions as savepoints of a group-committed batch. The connection's lock
 * is the driver's own (Kysely's is private), so that a statement can run without Kysely's executor when nothing
 * holds the connection (runDirectly).
 */
export class GroupCommitSqliteDriver extends SqliteDriver {
  readonly #database: SqliteDatabase;
  readonly #connection: DatabaseConnection;
  /** Whether a statement, a transaction or a hold has the connection, and who waits for it, in order. */
  #held = false;
  readonly #waiting: (() => void)[] = [];
  /** Set when the database closes: Kysely refuses statements from then on, and so the direct path leaves them to it. */
  #closing = false;

  constructor(
    config: SqliteDialectConfig & { database: SqliteDatabase },
    private readonly group: SqliteGroupCommit,
    /** Runs after the last sync and before the connection closes (the checkpoint worker's stop). */
    private readonly beforeClose?: () => Promise<void> | undefined,
  ) {
    super(config);
    const database = config.database;
    this.#database = database;
    this.#connection = {
      executeQuery: async <R>(query: CompiledQuery) => executeOn(database, query) as QueryResult<R>,
      streamQuery: async function* <R>(query: CompiledQuery) {
        for (const row of iterateRowObjects(database.prepare(query.sql), query.parameters)) yield { rows: [row as R] };
      },
    };
    group.useConnectionHold(async (work) => {
      // Statements and transactions queue behind this hold as behind any other.
      await this.acquireConnection();
      try {
        return await work();
      } finally {
        await this.releaseConnection();
      }
    });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // Handed over by releaseConnection: the connection stays held.
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    return this.#connection;
  }

  /**
   * Runs a compiled statement the way acquiring the connection, executing and releasing it would, without Kysely's
   * executor (its connection provider, lock and query id: in microbenchmarks, 7 us more than the statement itself
   * outside a transaction with Kysely's own SQLite driver, and 1 us more inside one here, where a payment's
   * statements take 2-30 us): at once, since better-sqlite3 runs it synchronously, and then waits for the sync that
   * covers a write, as releaseConnection does. In a transaction (`inTransaction`), which holds the connection, it is
   * one more statement of that transaction. Undefined when the connection is held by someone else, or the database
   * is closing: the caller goes through Kysely, which has it wait its turn, or refuses it.
   */
  runDirectly(query: CompiledQuery, inTransaction: boolean): Promise<QueryResult<unknown>> | undefined {
    if (this.#closing || inTransaction !== this.#held) return undefined;
    if (inTransaction) return this.#connection.executeQuery(query);
    let outcome: () => QueryResult<unknown>;
    try {
      const result = executeOn(this.#database, query);
      outcome = () => result;
    } catch (error) {
      outcome = () => {
        throw error;
      };
    }
    // As releaseConnection: a write's caller resumes once the sync that covers it is done, a failed one's too.
    const batch = this.group.released();
    return batch === undefined ? Promise.resolve().then(outcome) : this.group.durable(batch).then(outcome);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.group.beginTransaction();
    try {
      await connection.executeQuery(BEGIN_SAVEPOINT);
    } catch (error) {
      this.group.endTransaction();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(RELEASE_SAVEPOINT);
    } finally {
      this.group.endTransaction();
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(ROLLBACK_TO_SAVEPOINT);
      await connection.executeQuery(RELEASE_SAVEPOINT);
    } finally {
      this.group.endTransaction();
    }
  }

  override async releaseConnection(): Promise<void> {
    const batch = this.group.released();
    // Released first, so the transactions queued behind this statement join the same COMMIT.
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#held = false;
    if (batch !== undefined) await this.group.durable(batch);
  }

  override async destroy(): Promise<void> {
    this.#closing = true;
    await this.group.drain();
    await this.beforeClose?.();
    await super.destroy();
  }
}

/** SqliteDialect with the group-commit driver. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  /** The driver, once Kysely has asked for it (in its constructor). */
  driver: GroupCommitSqliteDriver | undefined;

  constructor(
    private readonly config: SqliteDialectConfig & { database: SqliteDatabase },
    private readonly group: SqliteGroupCommit,
    private readonly beforeClose?: () => Promise<void> | undefined,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    this.driver = new GroupCommitSqliteDriver(this.config, this.group, this.beforeClose);
    return this.driver;
  }
}
