import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { InsertResult, Scope } from '../kernel/store-types';
import { isoString } from '../kernel/clock';
import { durableTransaction } from './database';
import type { Database } from './schema';

export type Db = Kysely<Database> | Transaction<Database>;

/** Whether `db` talks to PostgreSQL: the few operations written once per engine ask this. */
export const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Runs `work` in the caller's transaction when `db` is one, else in a durable transaction of its own. */
export function inTransaction<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : durableTransaction(db as Kysely<Database>, work);
}

/** A date as stored: ISO 8601 text (kernel/clock.ts isoString, which keeps recent results). */
export const iso = isoString;

export const isoOrNull = (date: Date | null): string | null => (date === null ? null : isoString(date));

export const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

export const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

export function parseJson<T>(value: string | null): T | null {
  return value === null ? null : (JSON.parse(value) as T);
}

/** Rows changed by an INSERT ... ON CONFLICT DO NOTHING: 0 means the key already existed. */
export function insertResult(result: { numInsertedOrUpdatedRows?: bigint | undefined }): InsertResult {
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n ? 'inserted' : 'duplicate';
}

/**
 * The tenant filter of every single-table query on merchant data (each such table leads with account_id and mode):
 * `.where(inScope(scope))` keeps the rows of the caller's account and mode only.
 */
export function inScope(scope: Scope): RawBuilder<SqlBool> {
  return sql<SqlBool>`account_id = ${scope.accountId} and mode = ${scope.mode}`;
}
