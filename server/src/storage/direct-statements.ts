import type { CompiledQuery, Kysely, QueryResult } from 'kysely';

/**
 * Runs a compiled statement without Kysely's executor, or answers undefined when it cannot now (the statement then
 * goes through Kysely): SQLite's group-commit driver (storage/sqlite-group-commit.ts, runDirectly).
 */
export type DirectRunner = (query: CompiledQuery, inTransaction: boolean) => Promise<QueryResult<unknown>> | undefined;

/** By dialect adapter, which a database's transactions share with it. */
const directRunners = new WeakMap<object, DirectRunner>();

/** Has the statements compiledOnce (storage/compiled-query.ts) runs on `db` and its transactions try `runner` first. */
export function runCompiledDirectly(db: Pick<Kysely<unknown>, 'getExecutor'>, runner: DirectRunner): void {
  directRunners.set(db.getExecutor().adapter, runner);
}

/** The runner of the database whose dialect adapter this is, if it has one. */
export function directRunnerOf(adapter: object): DirectRunner | undefined {
  return directRunners.get(adapter);
}
