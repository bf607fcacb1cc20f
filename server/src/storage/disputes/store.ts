import type { DisputeStatus } from '../../../../protocol/api/disputes';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { DisputeFacets, DisputeFilter, DisputePatch, DisputeRecord, Evidence } from './records';

export interface DisputeStore {
  insertDispute(dispute: DisputeRecord): Promise<InsertResult>;
  findDispute(scope: Scope, disputeId: string): Promise<DisputeRecord | undefined>;
  /**
   * Applies `patch` only if the dispute's status is one of `expectedStatuses` and, when `expectedEvidence` is given,
   * its evidence is still that (the evidence the caller read and changed); undefined if not applied.
   */
  updateDispute(
    scope: Scope,
    disputeId: string,
    patch: DisputePatch,
    expectedStatuses: readonly DisputeStatus[],
    expectedEvidence?: Evidence,
  ): Promise<DisputeRecord | undefined>;
  /** One page of disputes, newest first. */
  listDisputes(scope: Scope, filter: DisputeFilter): Promise<DisputeRecord[]>;
  /** The number of disputes per status created within [from, to] (statuses with none are absent). */
  countDisputesByStatus(scope: Scope, from: Date, to: Date): Promise<Partial<Record<DisputeStatus, number>>>;
  /** The distinct values of the list's facets among the account's disputes. */
  findDisputeFacets(scope: Scope): Promise<DisputeFacets>;
  /** The sum of the payment's disputes that hold money (kept on the payment row), or undefined if no such payment. */
  findDisputedAmount(scope: Scope, paymentId: string): Promise<number | undefined>;
  /**
   * Adds `amount` to the payment's disputed sum only if the payment is in one of `disputableStatuses` and refunds and
   * disputes together stay <= amount_received (one conditional UPDATE of the payment row, counting its version up).
   * False when it did not fit: of concurrent disputes and refunds, only those that fit succeed.
   */
  holdDisputedAmount(scope: Scope, paymentId: string, amount: number, disputableStatuses: readonly PaymentStatus[]): Promise<boolean>;
  /** Gives back what a dispute held (it no longer holds money: won). */
  releaseDisputedAmount(scope: Scope, paymentId: string, amount: number): Promise<void>;
}

/** The disputes stores, as storage/stores.ts composes them into Stores. */
export interface DisputesStores {
  disputes: DisputeStore;
}
