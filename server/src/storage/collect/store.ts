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

/**
 * The maintained balances (one row per account, mode and currency): moved by the core in the transaction of every
 * status change that moves money, so a read is one row per currency whatever the account's history.
 */
export interface CollectBalanceStore {
  /** The stored balances of the account and mode (currencies that never moved have no row). */
  readBalances(scope: Scope): Promise<CollectBalance[]>;
  /**
   * The balance of one currency, locked until the transaction ends (its row created at zero if missing): PostgreSQL
   * holds the row lock, SQLite runs one writer. Settlement requests call it inside their transaction, before they
   * check and debit the balance, so concurrent requests on any instance see each other's debits.
   */
  lockBalance(scope: Scope, currency: CollectCurrency): Promise<CollectBalance>;
  /** Adds `move` to each bucket of the balance (its row created at zero if missing), in the caller's transaction. */
  moveBalance(scope: Scope, currency: CollectCurrency, move: BalanceBuckets): Promise<void>;
}

/** The collect stores, as storage/stores.ts composes them into Stores. */
export interface CollectStores {
  collections: CollectionStore;
  settlements: SettlementStore;
  collectBalances: CollectBalanceStore;
}
