/**
 * Store interfaces and records of the payments operations (issue 3): attempts and the payments list. Composed into
 * `Stores` (stores.ts); one SQL implementation in sql-payment-ops-store.ts.
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { OutboxEventRecord } from '../events/records';
import type { CaptureSettlement, PaymentAttemptPatch, PaymentAttemptRecord, PaymentCaptureRecord, PaymentListQuery, PaymentPatch, PaymentRecord, WaitingPaymentCursor, CaptureCreatedCursor, PaymentUpdatedCursor } from './records';

/** An attempt before the store numbers it. */
export type NewPaymentAttempt = Omit<PaymentAttemptRecord, 'attemptId' | 'attemptNumber'>;

/** A payment claimed by confirm and the attempt the claim opened. */
export interface ClaimedPayment {
  payment: PaymentRecord;
  attempt: PaymentAttemptRecord;
  /**
   * Resolves once a power loss could not lose the claim (it rejects if its COMMIT or sync failed; never an unhandled
   * rejection). On SQLite, a claim made on its own resolves once committed, and this waits for the sync that covers
   * it, already under way. Inside a caller's transaction, and on PostgreSQL, the claim is as durable as that
   * transaction or its own statement, and this is resolved; except a PostgreSQL claim made with `flushLater`: this
   * then flushes the WAL (a round trip and a sync of its own), unless `since`, the payment as the caller has read or
   * written it after the claim, is a later version, whose synchronous commit covered the claim.
   */
  durable(since?: PaymentRecord): Promise<void>;
}

export interface PaymentAttemptStore {
  /**
   * Inserts the payment's next attempt in one statement: attempt_number is the number of its attempts so far plus
   * one, attempt_id `<payment_id>_<attempt_number>` (Hyperswitch's attempt id). Returns the stored attempt.
   */
  insertNextAttempt(attempt: NewPaymentAttempt): Promise<PaymentAttemptRecord>;
  /** Updates the payment's newest attempt; undefined when it has none. */
  updateLatestAttempt(scope: Scope, paymentId: string, patch: PaymentAttemptPatch): Promise<PaymentAttemptRecord | undefined>;
  /** Oldest first. */
  listAttempts(scope: Scope, paymentId: string): Promise<PaymentAttemptRecord[]>;
  findAttemptByPollId(scope: Scope, pollId: string): Promise<PaymentAttemptRecord | undefined>;
}

export interface PaymentListStore {
  /** At most `limit` payments, newest first (created descending, payment_id descending among equal created). */
  listPayments(scope: Scope, query: PaymentListQuery): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode that wait for the customer on a rail (status
   * requires_customer_action), after `after` in (updated_at, account_id, mode, payment_id) order, oldest first.
   */
  listWaitingPayments(after: WaitingPaymentCursor | null, limit: number): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode in `processing` (claimed by a confirm) last changed before
   * `before`, oldest first (after `after` in (updated_at, account_id, mode, payment_id) order): the ones a crash or a
   * silent rail may have left there.
   */
  listPaymentsProcessingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode in requires_capture with nothing capturable, last changed
   * before `before`, oldest first (after `after`, as listPaymentsProcessingBefore): only a void, or a capture of all
   * that was left, at the rail leaves a payment so.
   */
  listPaymentsHoldChangingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode whose railState marks a cancel after capture or an incremental
   * authorization asked of the rail and not recorded yet, last changed before `before`, oldest first (after `after`, as
   * listPaymentsProcessingBefore): no status shows them.
   */
  listPaymentsRailChangingBefore(before: Date, limit: number, after?: PaymentUpdatedCursor): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode in one of `statuses` whose authorization expired at or
   * before `at` (manual capture), soonest expiry first.
   */
  listLapsedAuthorizations(statuses: readonly PaymentStatus[], at: Date, limit: number): Promise<PaymentRecord[]>;
}

export interface PaymentStore {
  insertPayment(payment: PaymentRecord): Promise<InsertResult>;
  findPayment(scope: Scope, paymentId: string): Promise<PaymentRecord | undefined>;
  /**
   * Applies `patch` only if the payment's status is one of `expectedStatuses` (a conditional UPDATE), and returns
   * the updated payment, or undefined when the payment was not in an expected status. This is what makes
   * concurrent confirms yield exactly one winner.
   */
  updatePaymentIfStatus(
    scope: Scope,
    paymentId: string,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
  ): Promise<PaymentRecord | undefined>;
  /**
   * Confirm's claim of `payment`, the record as the caller read it: updatePaymentIfStatus, and for the payment it
   * claimed the insert of its next attempt
   * (insertNextAttempt: status pending, the claimed payment's amount, currency, payment method and type, capture
   * method and connector, created at `now`), both or neither. Undefined when the payment was not in an expected
   * status. Atomic on its own (one statement on PostgreSQL), or part of the caller's transaction. On SQLite, on its
   * own, it resolves without waiting for its sync (ClaimedPayment.durable); on PostgreSQL, with `flushLater`, its
   * statement commits without waiting for the WAL flush, for a caller that tells nobody outside Rail's store of the
   * claim before it is durable (core/shared/rail-call.ts).
   */
  claimPaymentAndOpenAttempt(
    payment: PaymentRecord,
    expectedStatuses: readonly PaymentStatus[],
    patch: PaymentPatch,
    now: Date,
    options?: { flushLater?: boolean },
  ): Promise<ClaimedPayment | undefined>;
  /**
   * Applies `patch` only if the payment is still at `version` (nothing changed it since it was read), and returns
   * the updated payment, or undefined when another write came first. The manual-capture operations (capture, void
   * after capture, incremental and extended authorization, expiry) decide on what they read and write with this, so
   * concurrent captures never exceed amount_capturable and a capture racing a void has one winner.
   */
  updatePaymentIfVersion(scope: Scope, paymentId: string, version: number, patch: PaymentPatch): Promise<PaymentRecord | undefined>;
  /**
   * updatePaymentIfVersion of `payment` at the version the caller read, the patch of its newest attempt
   * (updateLatestAttempt) and the insert of the event that announces the change (the outbox's insertEvent), all or nothing: undefined, and nothing written, when
   * another write changed the payment first. Atomic on its own (one statement on PostgreSQL), or part of the
   * caller's transaction.
   */
  updatePaymentIfVersionWithEvent(
    payment: PaymentRecord,
    patch: PaymentPatch,
    attemptPatch: PaymentAttemptPatch | undefined,
    event: OutboxEventRecord | undefined,
  ): Promise<PaymentRecord | undefined>;
}

export interface PaymentCaptureStore {
  insertCapture(capture: PaymentCaptureRecord): Promise<void>;
  /** Oldest first (by capture_sequence). */
  listCaptures(scope: Scope, paymentId: string): Promise<PaymentCaptureRecord[]>;
  findCapture(scope: Scope, captureId: string): Promise<PaymentCaptureRecord | undefined>;
  /**
   * Records the rail's answer on a capture still `pending` (a conditional update); false when it was settled
   * already (by the request that asked the rail, or by recovery), and nothing is written.
   */
  settlePendingCapture(scope: Scope, captureId: string, settlement: CaptureSettlement): Promise<boolean>;
  /**
   * At most `limit` captures of every account and mode still `pending` that were created before `before`, oldest
   * first (after `after` in (created_at, account_id, mode, capture_id) order): the ones a crash or a silent rail may
   * have left there (the recovery job).
   */
  listCapturesPendingBefore(before: Date, limit: number, after?: CaptureCreatedCursor): Promise<PaymentCaptureRecord[]>;
}

/** The payments stores, as storage/stores.ts composes them into Stores. */
export interface PaymentsStores {
  payments: PaymentStore;
  attempts: PaymentAttemptStore;
  paymentList: PaymentListStore;
  captures: PaymentCaptureStore;
}
