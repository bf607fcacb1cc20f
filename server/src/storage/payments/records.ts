import type { CaptureMethod, FutureUsage, JsonObject, PaymentAttempt, PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { Currency } from '../../../../protocol/currency';
import type { NextAction, PaymentStatus } from '../../../../protocol/payments';
import type { Scope } from '../../kernel/store-types';
import type { Mode } from '../../../../protocol/ids';

export interface PaymentRecord extends Scope {
  paymentId: string;
  profileId: string;
  status: PaymentStatus;
  amount: number;
  currency: Currency;
  amountCapturable: number;
  amountReceived: number | null;
  amountToCapture: number | null;
  shippingCost: number | null;
  orderTaxAmount: number | null;
  captureMethod: CaptureMethod;
  customerId: string | null;
  description: string | null;
  returnUrl: string | null;
  setupFutureUsage: FutureUsage | null;
  paymentMethod: PaymentMethod | null;
  paymentMethodType: PaymentMethodType | null;
  paymentMethodData: PaymentMethodData | null;
  metadata: JsonObject | null;
  merchantOrderReferenceId: string | null;
  clientSecret: string;
  clientSecretExpiresAt: Date;
  nextAction: NextAction | null;
  errorCode: string | null;
  errorMessage: string | null;
  errorReason: string | null;
  /** Rail that took the payment at confirm (e.g. "upi"), and the adapter's connector name. */
  rail: string | null;
  connector: string | null;
  railReference: string | null;
  /** Adapter-owned state between authorize and a later sync (e.g. when a pending UPI collect resolves). */
  railState: JsonObject | null;
  /** SHA-256 of the canonical create body: payment_id idempotency (same id + same body replays). */
  requestFingerprint: string;
  /** The validated create body as sent, for fields that have no column of their own. */
  requestFields: JsonObject;
  /** Why the payment was cancelled (POST /payments/{id}/cancel); null otherwise. Column added by migration 0002. */
  cancellationReason?: string | null;
  /** The stored payment method this payment saved or was charged with (migration 0013); null otherwise. */
  paymentMethodId?: string | null;
  /** The mandate this payment created or was charged under (migration 0013); null otherwise. */
  mandateId?: string | null;
  /**
   * Manual capture (migration 0015): when the rail granted the open authorization, and until when it can be
   * captured (extended authorization moves it); null otherwise.
   */
  authorizedAt?: Date | null;
  authorizationExpiresAt?: Date | null;
  /** Incremented on every update. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change. */
export type PaymentPatch = Partial<
  Pick<
    PaymentRecord,
    | 'status'
    | 'amountCapturable'
    | 'amountReceived'
    | 'returnUrl'
    | 'setupFutureUsage'
    | 'paymentMethod'
    | 'paymentMethodType'
    | 'paymentMethodData'
    | 'nextAction'
    | 'errorCode'
    | 'errorMessage'
    | 'errorReason'
    | 'rail'
    | 'connector'
    | 'railReference'
    | 'railState'
    // Update (POST /payments/{id}), update_metadata and cancel.
    | 'amount'
    | 'currency'
    | 'amountToCapture'
    | 'shippingCost'
    | 'orderTaxAmount'
    | 'captureMethod'
    | 'customerId'
    | 'description'
    | 'metadata'
    | 'merchantOrderReferenceId'
    | 'clientSecretExpiresAt'
    | 'requestFields'
    | 'cancellationReason'
    | 'paymentMethodId'
    | 'mandateId'
    // Manual capture.
    | 'authorizedAt'
    | 'authorizationExpiresAt'
  >
> & { updatedAt: Date };

/**
 * The payment `payment` becomes under `patch`, version counted up: the row an update of `payment` with `patch` leaves
 * (a field the patch leaves undefined keeps its value, as the update leaves its column alone).
 */
export function patchedPayment(payment: PaymentRecord, patch: PaymentPatch): PaymentRecord {
  const next: PaymentRecord = { ...payment, version: payment.version + 1 };
  // for-in, not Object.entries: no [field, value] array per field (a confirm patches its payment two or three times).
  for (const field in patch) {
    const value = (patch as Record<string, unknown>)[field];
    if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  }
  return next;
}

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

/**
 * A capture's status: `pending` from before the rail is asked until its answer is recorded (docs/capture.md, "The
 * rail"), then `charged` or `failed` (the rail refused it).
 */
export type CaptureStatus = 'pending' | 'charged' | 'failed';

/**
 * One capture of a manual-capture payment (Hyperswitch's capture): capture_id is `<attempt_id>_<sequence>`, also the
 * idempotent reference of the capture on the rail.
 */
export interface PaymentCaptureRecord extends Scope {
  captureId: string;
  paymentId: string;
  attemptId: string;
  captureSequence: number;
  status: CaptureStatus;
  amount: number;
  currency: Currency;
  connector: string | null;
  connectorCaptureId: string | null;
  /** The rail's refusal (failed only). */
  errorCode: string | null;
  errorMessage: string | null;
  /**
   * The reference of the request that asked for the capture (migration 0030): derived from its Idempotency-Key in a
   * keyed request, so that its re-run finds this capture and answers from it instead of capturing again.
   */
  requestReference: string | null;
  createdAt: Date;
}

/** What the rail's answer sets on a pending capture. */
export type CaptureSettlement = Pick<PaymentCaptureRecord, 'connectorCaptureId' | 'errorCode' | 'errorMessage'> & {
  status: 'charged' | 'failed';
  /** What the rail captured (charged): it replaces the amount asked. */
  amount?: number;
};

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
  mode: Mode;
  paymentId: string;
}

/** Where a listing of payments in (updated_at, account_id, mode, payment_id) order resumes: after this one (a payment record is one). */
export type PaymentUpdatedCursor = WaitingPaymentCursor;

/** Where a listing of captures in (created_at, account_id, mode, capture_id) order resumes: after this one (a capture record is one). */
export interface CaptureCreatedCursor {
  createdAt: Date;
  accountId: string;
  mode: Mode;
  captureId: string;
}
