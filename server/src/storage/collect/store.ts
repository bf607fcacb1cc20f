import type { CollectionStatus, SettlementStatus } from '../../../../protocol/api/collect';
import type { Mode } from '../../../../protocol/ids';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { CollectCurrency } from '../../../../protocol/api/collect';
import type { BalanceBuckets, CollectBalance, CollectionPatch, CollectionRecord, SettlementPatch, SettlementRecord } from './records';

/** Where a listing of due rows resumes: after this row in (due_at, account, mode, id) order. */
export interface DueCursor {
  dueAt: Date | null;
  accountId: string;
  mode: Mode;
}

export interface CollectionStore {
  insertCollection(collection: CollectionRecord): Promise<InsertResult>;
  findCollection(scope: Scope, collectionId: string): Promise<CollectionRecord | undefined>;
  /**
   * Applies `patch` only if the collection is in one of `expected` and, with `unexpiredAt`, expires after that time
   * (a conditional UPDATE); the updated row or undefined.
   */
  updateCollectionIfStatus(
    scope: Scope,
    collectionId: string,
    expected: readonly CollectionStatus[],
    patch: CollectionPatch,
    unexpiredAt?: Date,
  ): Promise<CollectionRecord | undefined>;
  /**
   * Collections whose time-driven step is due at `now`: of one account and mode, or of all when scope is null; in
   * (due_at, account, mode, id) order, after `after` when given.
   */
  listDueCollections(scope: Scope | null, now: Date, limit: number, after?: DueCursor & { collectionId: string }): Promise<CollectionRecord[]>;
}

export interface SettlementStore {
  insertSettlement(settlement: SettlementRecord): Promise<InsertResult>;
  findSettlement(scope: Scope, settlementId: string): Promise<SettlementRecord | undefined>;
  updateSettlementIfStatus(scope: Scope, settlementId: string, expected: readonly SettlementStatus[], patch: SettlementPatch): Promise<SettlementRecord | undefined>;
  /** As listDueCollections. */
  listDueSettlements(scope: Scope | null, now: Date, limit: number, after?: DueCursor & { settlementId: string }): Promise<SettlementRecord[]>;
}

/** One balance: an account, mode and currency. */
export interface BalanceKey extends Scope {
  currency: CollectCurrency;
}

/**
 * The stored balances (collect_balances: one folded row per account, mode and currency; collect_balance_deltas: what
 * each status change moved since). A status change inserts its delta and never updates the row, so credits do not
 * wait on each other or on settlements; a fold, which locks the row, is the only writer of it.
 */
export interface CollectBalanceStore {
  /**
   * Each currency's balance of the account and mode: its row plus its deltas, read in one statement, so a fold that
   * commits meanwhile is seen whole or not at all (never its deltas both in the row and still listed, nor neither).
   * Currencies that never moved are absent.
   */
  readBalances(scope: Scope): Promise<CollectBalance[]>;
  /**
   * Records what one status change moved, in the change's transaction: an insert, keyed by `deltaId` (the object's id
   * and the status it reached, so a change is recorded once).
   */
  recordBalanceDelta(balance: BalanceKey, deltaId: string, move: BalanceBuckets): Promise<void>;
  /**
   * Locks the balance's row until the transaction ends (created at zero if missing; PostgreSQL holds the row lock,
   * SQLite runs one writer) and folds into it the deltas committed by then, at most `limit` of them when given (the
   * first by id): deletes them and adds what it deleted, nothing else, so a delta inserted meanwhile stays for the
   * next fold. Answers the row as folded and how many deltas it folded. Without a limit the row is then the whole
   * balance except deltas committed after the fold's delete, none of which lowers `available` (only settlement
   * requests do, and they fold under the lock first).
   */
  foldBalance(balance: BalanceKey, limit?: number): Promise<{ balance: CollectBalance; folded: number }>;
  /** Balances with deltas to fold, of every account, in (account, mode, currency) order after `after` when given. */
  listBalancesWithDeltas(limit: number, after?: BalanceKey): Promise<BalanceKey[]>;
}

/** The collect stores, as storage/stores.ts composes them into Stores. */
export interface CollectStores {
  collections: CollectionStore;
  settlements: SettlementStore;
  collectBalances: CollectBalanceStore;
}
