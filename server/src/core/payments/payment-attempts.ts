/**
 * Payment attempts: one per confirm (Hyperswitch's payment_attempt), with Hyperswitch AttemptStatus names. They back
 * expand_attempts, expand_captures (automatic capture: one capture per charged attempt) and poll status.
 */
import type { PaymentAttempt, PaymentCapture } from '../../../../protocol/api/payments';
import type { RailOutcome } from '../../rails/rail-adapter';
import { isoString } from '../../kernel/clock';
import type { AttemptStatus, PaymentAttemptPatch, PaymentAttemptRecord, PaymentCaptureRecord, PaymentRecord } from '../../storage/payments/records';
import type { Stores } from '../../storage/stores';

const AUTOMATIC = new Set(['automatic', 'sequential_automatic']);

/** The poll id of a payment that waits for the customer (GET /poll/status/{poll_id}). */
export function pollIdFor(paymentId: string): string {
  return `poll_${paymentId}`;
}

function attemptStatusFor(outcome: Exclude<RailOutcome, { kind: 'pending' }>, payment: PaymentRecord): AttemptStatus {
  switch (outcome.kind) {
    case 'authorized':
      return AUTOMATIC.has(payment.captureMethod) ? 'charged' : 'authorized';
    case 'declined':
      return 'failure';
    case 'customer_action':
      return 'authentication_pending';
  }
}

/** The payment's newest attempt (the one its authorization, captures and voids belong to); every confirmed payment has one. */
export async function latestAttemptOf(stores: Pick<Stores, 'attempts'>, payment: PaymentRecord): Promise<PaymentAttemptRecord> {
  const attempts = await stores.attempts.listAttempts(payment, payment.paymentId);
  const attempt = attempts[attempts.length - 1];
  if (attempt === undefined) throw new Error(`payment ${payment.paymentId} in ${payment.status} has no attempt`);
  return attempt;
}

/** Writes a rail answer onto the payment's newest attempt, in the caller's transaction. */
export async function recordAttemptOutcome(tx: Stores, payment: PaymentRecord, outcome: RailOutcome, now: Date): Promise<void> {
  if (outcome.kind === 'pending') return;
  await tx.attempts.updateLatestAttempt(payment, payment.paymentId, attemptPatchFor(payment, outcome, now));
}

/** What a rail answer changes on the payment's newest attempt. */
export function attemptPatchFor(payment: PaymentRecord, outcome: Exclude<RailOutcome, { kind: 'pending' }>, now: Date): PaymentAttemptPatch {
  return {
    status: attemptStatusFor(outcome, payment),
    referenceId: outcome.reference,
    ...(outcome.kind === 'declined'
      ? { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage, errorReason: outcome.errorReason }
      : {}),
    ...(outcome.kind === 'customer_action' ? { pollId: pollIdFor(payment.paymentId) } : {}),
    updatedAt: now,
  };
}

export function toAttemptResponse(attempt: PaymentAttemptRecord): PaymentAttempt {
  return {
    attempt_id: attempt.attemptId,
    status: attempt.status,
    amount: attempt.amount,
    currency: attempt.currency,
    connector: attempt.connector,
    payment_method: attempt.paymentMethod,
    payment_method_type: attempt.paymentMethodType,
    capture_method: attempt.captureMethod,
    reference_id: attempt.referenceId,
    error_code: attempt.errorCode,
    error_message: attempt.errorMessage,
    error_reason: attempt.errorReason,
    cancellation_reason: attempt.cancellationReason,
    created_at: isoString(attempt.createdAt),
    modified_at: isoString(attempt.updatedAt),
  };
}

/**
 * Captures of a payment with automatic capture: the rail captures as it authorizes, so each charged attempt is one
 * capture of its whole amount (capture_sequence 1, id `<attempt_id>_1`). Manual captures are stored records
 * (toCaptureResponse).
 */
export function capturesOf(attempts: readonly PaymentAttemptRecord[]): PaymentCapture[] {
  return attempts
    .filter((attempt) => attempt.status === 'charged' && AUTOMATIC.has(attempt.captureMethod))
    .map((attempt) => ({
      capture_id: `${attempt.attemptId}_1`,
      status: 'charged' as const,
      amount: attempt.amount,
      currency: attempt.currency,
      connector: attempt.connector,
      authorized_attempt_id: attempt.attemptId,
      connector_capture_id: attempt.referenceId,
      capture_sequence: 1,
      error_message: null,
      error_code: null,
      error_reason: null,
      reference_id: attempt.referenceId,
    }));
}

/** One capture of a manual-capture payment, as expand_captures shows it (Hyperswitch CaptureResponse). */
export function toCaptureResponse(capture: PaymentCaptureRecord): PaymentCapture {
  return {
    capture_id: capture.captureId,
    status: capture.status,
    amount: capture.amount,
    currency: capture.currency,
    connector: capture.connector,
    authorized_attempt_id: capture.attemptId,
    connector_capture_id: capture.connectorCaptureId,
    capture_sequence: capture.captureSequence,
    error_message: capture.errorMessage,
    error_code: capture.errorCode,
    error_reason: null,
    reference_id: capture.connectorCaptureId,
  };
}
