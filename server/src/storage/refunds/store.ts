import type { RefundStatus } from '../../../../protocol/api/refunds';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { RefundCreatedCursor, RefundFilter, RefundPage, RefundPatch, RefundRecord } from './records';

export interface RefundStore {
  insertRefund(refund: RefundRecord): Promise<InsertResult>;
  findRefund(scope: Scope, refundId: string): Promise<RefundRecord | undefined>;
  /** Applies `patch` (only if the refund's status is one of `expectedStatuses`, when given); undefined if not applied. */
  updateRefund(
    scope: Scope,
    refundId: string,
    patch: RefundPatch,
    expectedStatuses?: readonly RefundStatus[],
  ): Promise<RefundRecord | undefined>;
  /** One page of refunds, newest first, and the number of all matches. */
  listRefunds(scope: Scope, filter: RefundFilter): Promise<RefundPage>;
  /** The latest `limit` refunds of one payment, oldest first. */
  listRefundsOfPayment(scope: Scope, paymentId: string, limit: number): Promise<RefundRecord[]>;
  /** The sum of the payment's non-failed refunds (kept on the payment row), or undefined if no such payment. */
  findRefundedAmount(scope: Scope, paymentId: string): Promise<number | undefined>;
  /**
   * Adds `amount` to the payment's refunded sum only if the payment is in one of `refundableStatuses` and the new
   * sum plus what disputes hold (DisputeStore.holdDisputedAmount) stays <= amount_received (one conditional UPDATE of
   * the payment row). False when it did not fit: of concurrent reservations and disputes that together exceed the
   * captured amount, only those that fit succeed.
   */
  reserveRefundAmount(scope: Scope, paymentId: string, amount: number, refundableStatuses: readonly PaymentStatus[]): Promise<boolean>;
  /**
   * At most `limit` refunds of every account and mode in `pending` created before `before`, oldest first (by creation:
   * an update of a pending refund's reason or metadata does not put its recovery off), after `after` in (created_at,
   * account_id, mode, refund_id) order.
   */
  listRefundsPendingBefore(before: Date, limit: number, after?: RefundCreatedCursor): Promise<RefundRecord[]>;
  /** Gives back a reservation (the refund failed). */
  releaseRefundAmount(scope: Scope, paymentId: string, amount: number): Promise<void>;
}

/** The refunds stores, as storage/stores.ts composes them into Stores. */
export interface RefundsStores {
  refunds: RefundStore;
}
