import type { CollectionStatus, SettlementStatus } from '../../../../protocol/api/collect';
import type { Mode } from '../../../../protocol/ids';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { CollectionPatch, CollectionRecord, SettlementPatch, SettlementRecord, StatusTotal } from './records';

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
  /** Amounts by currency and status (the balance is derived from these). */
  collectionTotals(scope: Scope): Promise<StatusTotal[]>;
}

export interface SettlementStore {
  /**
   * Serializes the settlement requests of one balance until the transaction ends: an update of the balance's lock
   * row (PostgreSQL holds the row lock; SQLite runs one writer). Call inside a transaction, before reading the balance.
   */
  lockBalance(scope: Scope, currency: string): Promise<void>;
  insertSettlement(settlement: SettlementRecord): Promise<InsertResult>;
  findSettlement(scope: Scope, settlementId: string): Promise<SettlementRecord | undefined>;
  updateSettlementIfStatus(scope: Scope, settlementId: string, expected: readonly SettlementStatus[], patch: SettlementPatch): Promise<SettlementRecord | undefined>;
  /** As listDueCollections. */
  listDueSettlements(scope: Scope | null, now: Date, limit: number, after?: DueCursor & { settlementId: string }): Promise<SettlementRecord[]>;
  /** Gross amounts by currency and status. */
  settlementTotals(scope: Scope): Promise<StatusTotal[]>;
}

/** The collect stores, as storage/stores.ts composes them into Stores. */
export interface CollectStores {
  collections: CollectionStore;
  settlements: SettlementStore;
}
