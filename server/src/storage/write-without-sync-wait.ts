import { sql, type InsertQueryBuilder, type InsertResult, type QueryResult, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import { compiledOnce } from './compiled-query';
import type { Database } from './schema';
import { type Db, isPostgres } from './sql-rows';
import { NO_DURABLE_WAIT } from './sqlite-group-commit';

/** An insert into or an update of one table. */
type Write<Table extends keyof Database> = InsertQueryBuilder<Database, Table, InsertResult> | UpdateQueryBuilder<Database, Table, Table, UpdateResult>;

/** PostgreSQL: synchronous_commit off for the calling transaction only (set_config local), once per row it runs for. */
const SYNCHRONOUS_COMMIT_OFF = "set_config('synchronous_commit', 'off', true)";
/** Every row written turns synchronous_commit off for the statement's own transaction. */
const ASYNCHRONOUS_COMMIT = sql.raw(`returning ${SYNCHRONOUS_COMMIT_OFF} as synchronous_commit`);
/** The same as a column of a statement's select: every row it returns turns synchronous_commit off. */
export const ASYNCHRONOUS_COMMIT_COLUMN = sql<string>`${sql.raw(SYNCHRONOUS_COMMIT_OFF)}`.as('synchronous_commit');

/**
 * A write, compiled once, whose caller goes on without waiting for its own sync. Either a later durable commit that
 * the caller does wait for covers it (one WAL sync covers everything written before it on SQLite's group commit;
 * PostgreSQL flushes its WAL in order): the Idempotency-Key claim, the simulated rail's ledger. Or losing it in a
 * power loss costs a re-run and nothing acknowledged: the Idempotency-Key answer (docs/idempotency.md).
 *
 * When the call resolves, every later statement sees the write: PostgreSQL has committed it; SQLite has it in the
 * open batch (seen by the server's statements, which share its one connection), which commits at the end of that
 * turn of the event loop, or, while a sync runs, when that sync ends. From then on only a crash of the machine (or
 * of PostgreSQL) before the next sync can lose it, and on SQLite, the death of the server process before that batch
 * commits. On SQLite the statement ends with NO_DURABLE_WAIT (storage/sqlite-group-commit.ts); on PostgreSQL a
 * written row turns synchronous_commit off for the statement's own transaction, so the session keeps it on, and a
 * write of no row sets nothing. Inside a caller's transaction it is a plain write: the setting would weaken that whole
 * transaction's commit.
 */
export function writeWithoutSyncWait<Values extends Record<string, unknown>, Table extends keyof Database>(
  build: (db: Db, value: (name: keyof Values & string) => never) => Write<Table>,
): (db: Db, values: Values) => Promise<QueryResult<unknown>> {
  const marked = compiledOnce<Values>((db, value) => build(db, value).modifyEnd(sql.raw(NO_DURABLE_WAIT)));
  const asynchronousCommit = compiledOnce<Values>((db, value) => build(db, value).modifyEnd(ASYNCHRONOUS_COMMIT));
  return (db, values) => (isPostgres(db) && !db.isTransaction ? asynchronousCommit : marked)(db, values);
}

/**
 * PostgreSQL: resolves once every write committed so far is durable, for a write committed without waiting for its
 * flush that no later durable commit has covered. A transactional logical message is WAL written under a transaction
 * id, so its synchronous commit flushes the WAL up to itself, past every earlier commit, without touching a table
 * (any role may emit one, at any wal_level).
 */
export async function flushWal(db: Db): Promise<void> {
  await sql`select pg_logical_emit_message(true, 'rail', 'flush')`.execute(db);
}
