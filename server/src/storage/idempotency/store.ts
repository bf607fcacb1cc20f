import type { InsertResult } from '../../kernel/store-types';
import type { IdempotencyKeyRecord, IdempotencyScope, StoredResponse } from './records';

export interface IdempotencyStore {
  /**
   * Claims a key: inserts the in-flight row, or reports that a row for the key already exists. Resolves once the row
   * is visible to every later request, which may be before a crash could not lose it: `durable` resolves then (on
   * SQLite, the group commit's sync; storage/sqlite-group-commit.ts). Await it before answering the request. On
   * PostgreSQL it resolves at once: the claim commits without waiting for its WAL flush, and the next durable
   * commit covers it (the operation's own).
   */
  insertClaim(record: IdempotencyKeyRecord): Promise<{ result: InsertResult; durable: Promise<void> }>;
  findKey(scope: IdempotencyScope, key: string): Promise<IdempotencyKeyRecord | undefined>;
  /**
   * Takes over an existing row (a conditional UPDATE): only when it has expired (`expires_at <= now`) or is an
   * in-flight claim whose lease ran out (`locked_at <= leaseCutoff`). True when this caller won the row.
   */
  reclaim(record: IdempotencyKeyRecord, leaseCutoff: Date): Promise<boolean>;
  /**
   * Stores the response of the claim holding `claimToken`; false when the claim was taken over meanwhile. Resolves
   * once a repeat finds it, without waiting for its sync (storage/write-without-sync-wait.ts): a power loss before
   * the next one leaves the claim in flight (docs/idempotency.md, "After a crash").
   */
  complete(scope: IdempotencyScope, key: string, claimToken: string, response: StoredResponse): Promise<boolean>;
  /**
   * Gives up the claim holding `claimToken` (the answer asked for a retry: a 5xx, a 429, a "try later"): its lease is
   * made to have run out, so the retry of the same request takes it over with the claim's ids and finds what this run
   * committed, if anything, instead of creating it again.
   */
  release(scope: IdempotencyScope, key: string, claimToken: string): Promise<void>;
  /** Deletes rows past their expiry; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** The idempotency stores, as storage/stores.ts composes them into Stores. */
export interface IdempotencyStores {
  idempotency: IdempotencyStore;
}
