import type { JsonObject } from '../../../../protocol/api/payments';
import type { RailLedgerKey, RecoveryLeaseKey } from './records';

export interface RailLedgerStore {
  /** The ledger is Rail's own store (rails/rail-ledger.ts RailLedger.inRailStore). */
  readonly inRailStore: true;
  /** Keeps `answer` under the key unless one is kept already; returns the answer kept (the first one). */
  rememberRailAnswer(key: RailLedgerKey, answer: JsonObject, now: Date): Promise<JsonObject>;
  findRailAnswer(key: RailLedgerKey): Promise<JsonObject | undefined>;
  /** Every answer kept under a reference that starts with `referencePrefix`. */
  listRailAnswers(key: Omit<RailLedgerKey, 'reference'>, referencePrefix: string): Promise<JsonObject[]>;
}

export interface RecoveryLeaseStore {
  /**
   * Takes the lease on an object until `until`, when nobody holds it (no row, or a lease that ended at or before
   * `now`). A conditional write: of several instances asking at once, exactly one gets true.
   */
  takeRecoveryLease(key: RecoveryLeaseKey, until: Date, now: Date): Promise<boolean>;
  /** Drops the lease once the object is resolved. */
  dropRecoveryLease(key: RecoveryLeaseKey): Promise<void>;
}

/** The recovery stores, as storage/stores.ts composes them into Stores. */
export interface RecoveryStores {
  railLedger: RailLedgerStore;
  recoveryLeases: RecoveryLeaseStore;
}
