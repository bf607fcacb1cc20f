/**
 * API key look-ups kept in memory: every API call looks its key up (a three-table join and two JSON documents to
 * parse, some 8 % of a payment call's CPU on SQLite; on PostgreSQL also a round trip, two of a payment's seven
 * statements), and the answer changes only when a key, an account or a profile does. A kept answer is used only
 * while the tables' watch has not moved (storage/sqlite-table-watch.ts, storage/postgres-table-watch.ts): a key
 * revoked or rotated through this process, or by any other connection or instance, is looked up again on the next
 * request, as before. A look-up is kept only if nothing moved while it was read. Kept answers are frozen: a caller
 * that tried to change one would throw, not change the next caller's.
 */
import type { KeyWithAccount } from './store';

/** What tells whether the tables a look-up read may have changed since (SqliteTableWatch, PostgresTableWatch). */
export interface TableWatch {
  /** A number that moves whenever they may have changed; undefined while nothing may be kept. */
  generation(): number | undefined;
}

/**
 * Whether a statement's text writes one of `tables` (quoted or not, schema-qualified or not): names it as the target
 * of an insert, replace, update, delete, merge or truncate, or of DDL. How both watches tell which writes they
 * watch. A table a writing statement only reads is not written: the outbox's event insert reads `accounts` in a
 * subquery (storage/events/sql-store.ts), and counting every mention made each event drop every kept key look-up.
 */
export function writesAnyOf(tables: readonly string[]): (sql: string) => boolean {
  const names = tables.join('|');
  const write = String.raw`(?:insert|replace)(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?(?:\s+only)?|delete\s+from(?:\s+only)?|merge\s+into|truncate(?:\s+table)?(?:\s+only)?|(?:alter|drop|create)\s+table(?:\s+if(?:\s+not)?\s+exists)?`;
  const table = String.raw`(?:"?\w+"?\.)?(?:"(?:${names})"|(?:${names})\b)`;
  const pattern = new RegExp(String.raw`\b(?:${write})\s+${table}`, 'i');
  return (sql) => pattern.test(sql);
}

/** The tables a key look-up reads (storage/accounts/sql-store.ts findApiKeyByHash). */
export const KEY_LOOKUP_TABLES = ['api_keys', 'accounts', 'business_profiles'] as const;

/** Keys kept at most; an account has a handful, a deployment a few thousand at most. */
const MAX_ENTRIES = 10_000;

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || value instanceof Date) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

export class KeyLookupCache {
  readonly #answers = new Map<string, KeyWithAccount | undefined>();
  #generation: number | undefined;

  constructor(private readonly watch: TableWatch) {}

  /** The kept answer for `keyHash`, without reading: undefined when none is kept or what was kept may be stale. */
  kept(keyHash: string): KeyWithAccount | undefined {
    const generation = this.watch.generation();
    return generation === undefined || generation !== this.#generation ? undefined : this.#answers.get(keyHash);
  }

  /** The kept answer for `keyHash` (undefined: a key that was not found is not kept), or reads and keeps it. */
  async lookUp(keyHash: string, read: () => Promise<KeyWithAccount | undefined>): Promise<KeyWithAccount | undefined> {
    const generation = this.watch.generation();
    if (generation !== this.#generation) {
      this.#answers.clear();
      this.#generation = generation;
    }
    const kept = generation === undefined ? undefined : this.#answers.get(keyHash);
    if (kept !== undefined) return kept;
    const answer = await read();
    if (answer !== undefined && generation !== undefined && this.watch.generation() === generation && this.#generation === generation) {
      if (this.#answers.size >= MAX_ENTRIES) this.#answers.clear();
      this.#answers.set(keyHash, deepFreeze(answer));
    }
    return answer;
  }
}
