import { sql, type InsertQueryBuilder, type InsertResult, type QueryResult } from 'kysely';
import { compiledOnce } from './compiled-query';
import type { Database } from './schema';
import { type Db, isPostgres } from './sql-rows';
import { NO_DURABLE_WAIT } from './sqlite-group-commit';

/**
 * An insert, compiled once, whose caller goes on without waiting for its own sync, because a later durable commit it
 * does wait for covers it (one WAL sync covers everything written before it on SQLite's group commit; PostgreSQL
 * flushes its WAL in order): the Idempotency-Key claim, the simulated rail's ledger. On SQLite the statement ends
 * with NO_DURABLE_WAIT (storage/sqlite-group-commit.ts). On PostgreSQL the inserted row turns synchronous_commit off
 * for the statement's own transaction (set_config local, so the session keeps it on); a conflict inserts nothing
 * and sets nothing. Inside a caller's transaction it is a plain insert: the setting would weaken that whole
 * transaction's commit.
 */
export function insertWithoutSyncWait<Values extends Record<string, unknown>, Table extends keyof Database>(
  build: (db: Db, value: (name: keyof Values & string) => never) => InsertQueryBuilder<Database, Table, InsertResult>,
): (db: Db, values: Values) => Promise<QueryResult<unknown>> {
  const marked = compiledOnce<Values>((db, value) => build(db, value).modifyEnd(sql.raw(NO_DURABLE_WAIT)));
  const asynchronousCommit = compiledOnce<Values>((db, value) =>
    build(db, value).returning(sql<string>`set_config('synchronous_commit', 'off', true)`.as('synchronous_commit')),
  );
  return (db, values) => (isPostgres(db) && !db.isTransaction ? asynchronousCommit : marked)(db, values);
}
