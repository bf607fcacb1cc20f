/**
 * Group commit for SQLite: one fsync acknowledges every transaction that committed since the last one.
 *
 * With synchronous=FULL each COMMIT waits for an fsync of the WAL on the event loop's thread, and under load that
 * wait is most of what a payment costs (docs/benchmarks.md). Here a logical transaction (Store.transaction) is a
 * SAVEPOINT inside one open database transaction, the batch; RELEASE ends it, and the batch COMMITs (one fsync) at
 * the next turn of the event loop when no logical transaction is in progress. Store.transaction resolves only
 * after the COMMIT of its batch, so nothing is acknowledged before it is durable; a crash loses only transactions
 * nobody was told about. A logical transaction that fails rolls back to its savepoint and leaves the batch intact.
 *
 * A write outside a logical transaction (a single statement) autocommits when no batch is open; inside an open batch
 * it joins the batch, and its caller resumes after the batch's COMMIT, as a transaction's does. Reads may see a logical transaction's writes before its batch is
 * durable (one connection); what they answer is never acknowledged as a write of theirs.
 */
import type { Database as SqliteHandle } from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export class SqliteGroupCommit {
  #batchOpen = false;
  /** The batch now open (or the next one); ids of committed batches are below it. */
  #batchId = 0;
  #activeTransactions = 0;
  #flushScheduled = false;
  /** Set when a statement that writes runs outside a logical transaction; the batch then commits on release. */
  #singleWrite = false;
  readonly #batches = new Map<number, Batch>();
  /** Batches whose COMMIT failed, for callers that ask after the fact. */
  readonly #failed = new Map<number, unknown>();
  /** COMMITs so far (one fsync each). */
  commits = 0;

  constructor(private readonly sqlite: SqliteHandle) {}

  /** A statement about to run: a write outside a logical transaction makes the batch commit on release. */
  noteStatement(reader: boolean): void {
    if (!reader && this.#activeTransactions === 0) this.#singleWrite = true;
  }

  beginTransaction(): void {
    if (!this.#batchOpen) {
      this.sqlite.exec('BEGIN IMMEDIATE');
      this.#batchOpen = true;
    }
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
    });
  }

  /** The batch the running logical transaction belongs to. */
  currentBatch(): number {
    return this.#batchId;
  }

  /** Resolves once batch `id` is committed (durable); rejects if its COMMIT failed. */
  durable(id: number): Promise<void> {
    if (id < this.#batchId || !this.#batchOpen) {
      return this.#failed.has(id) ? Promise.reject(this.#failed.get(id)) : Promise.resolve();
    }
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
   * Connection released. A single write since the last release that ran inside the open batch returns that batch,
   * for its caller to wait on (it joins the batch's COMMIT like a transaction); otherwise undefined (autocommit).
   */
  released(): number | undefined {
    if (!this.#singleWrite) return undefined;
    this.#singleWrite = false;
    if (!this.#batchOpen) return undefined;
    this.#scheduleFlush();
    return this.#batchId;
  }

  /** Commits the open batch unless a logical transaction is in progress (its end schedules the next try). */
  flush(): void {
    if (!this.#batchOpen || this.#activeTransactions > 0) return;
    const id = this.#batchId;
    this.#batchOpen = false;
    this.#batchId += 1;
    const batch = this.#batches.get(id);
    this.#batches.delete(id);
    try {
      this.sqlite.exec('COMMIT');
      this.commits += 1;
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      this.#failed.set(id, error);
      if (this.#failed.size > 100) this.#failed.delete(this.#failed.keys().next().value as number);
      batch?.reject(error);
      return;
    }
    batch?.resolve();
  }
}

const SAVEPOINT = 'rail_tx';

/** Kysely's SQLite driver with logical transactions as savepoints of a group-committed batch. */
export class GroupCommitSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly group: SqliteGroupCommit,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.group.beginTransaction();
    try {
      await connection.executeQuery(CompiledQuery.raw(`savepoint ${SAVEPOINT}`));
    } catch (error) {
      this.group.endTransaction();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw(`release ${SAVEPOINT}`));
    } finally {
      this.group.endTransaction();
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw(`rollback to ${SAVEPOINT}`));
      await connection.executeQuery(CompiledQuery.raw(`release ${SAVEPOINT}`));
    } finally {
      this.group.endTransaction();
    }
  }

  override async releaseConnection(): Promise<void> {
    const batch = this.group.released();
    await super.releaseConnection();
    // Released first, so the transactions queued behind this statement join the same COMMIT.
    if (batch !== undefined) await this.group.durable(batch);
  }

  override async destroy(): Promise<void> {
    this.group.flush();
    await super.destroy();
  }
}

/** SqliteDialect with the group-commit driver. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly group: SqliteGroupCommit,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.config, this.group);
  }
}
