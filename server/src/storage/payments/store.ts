/**
 * Store interfaces and records of the payments operations (issue 3): attempts and the payments list. Composed into
 * `Stores` (stores.ts); one SQL implementation in sql-payment-ops-store.ts.
 */
import type { Currency } from '../../../../protocol/currency';
import type { CaptureMethod, PaymentAttempt } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { PaymentRecord, Scope } from '../records';

export type AttemptStatus = PaymentAttempt['status'];

/** One confirm of a payment. attemptId is Hyperswitch's `<payment_id>_<attempt_number>`. */
export interface PaymentAttemptRecord extends Scope {
  attemptId: string;
  paymentId: string;
  attemptNumber: number;
  status: AttemptStatus;
  amount: number;
  currency: Currency;
  paymentMethod: PaymentMethod | null;
  paymentMethodType: PaymentMethodType | null;
  captureMethod: CaptureMethod;
  connector: string | null;
  referenceId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  errorReason: string | null;
  pollId: string | null;
  cancellationReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type PaymentAttemptPatch = Partial<
  Pick<
    PaymentAttemptRecord,
    'status' | 'referenceId' | 'errorCode' | 'errorMessage' | 'errorReason' | 'pollId' | 'cancellationReason'
  >
> & { updatedAt: Date };

export interface PaymentAttemptStore {
  insertAttempt(attempt: PaymentAttemptRecord): Promise<void>;
  /** Number of attempts the payment has (the next attempt_number is this plus one). */
  countAttempts(scope: Scope, paymentId: string): Promise<number>;
  /** Updates the payment's newest attempt; undefined when it has none. */
  updateLatestAttempt(scope: Scope, paymentId: string, patch: PaymentAttemptPatch): Promise<PaymentAttemptRecord | undefined>;
  /** Oldest first. */
  listAttempts(scope: Scope, paymentId: string): Promise<PaymentAttemptRecord[]>;
  findAttemptByPollId(scope: Scope, pollId: string): Promise<PaymentAttemptRecord | undefined>;
}

/** Bounds on created (ISO 8601 UTC, compared as instants). */
export interface CreatedRange {
  eq?: Date;
  lt?: Date;
  gt?: Date;
  lte?: Date;
  gte?: Date;
}

export interface PaymentListQuery {
  customerId?: string;
  created: CreatedRange;
  limit: number;
  /** Payments strictly older than this one (in list order: newest first, ties broken by payment_id descending). */
  startingAfter?: { createdAt: Date; paymentId: string };
  /** Payments strictly newer than this one. */
  endingBefore?: { createdAt: Date; paymentId: string };
}

/** A place in the walk over waiting payments: the last payment a sweep looked at. */
export interface WaitingPaymentCursor {
  updatedAt: Date;
  accountId: string;
  mode: string;
  paymentId: string;
}

export interface PaymentListStore {
  /** At most `limit` payments, newest first (created descending, payment_id descending among equal created). */
  listPayments(scope: Scope, query: PaymentListQuery): Promise<PaymentRecord[]>;
  /**
   * At most `limit` payments of every account and mode that wait for the customer on a rail (status
   * requires_customer_action), after `after` in (updated_at, account_id, mode, payment_id) order, oldest first.
   */
  listWaitingPayments(after: WaitingPaymentCursor | null, limit: number): Promise<PaymentRecord[]>;
}
