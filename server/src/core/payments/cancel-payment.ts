import type { CancelPaymentRequest } from '../../../../protocol/api/payment-ops';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail } from '../shared/rail-call';
import { railAdapterOf } from './authorization-validity';
import { decideTransition } from './payment-transitions';
import { recordCancellation } from './record-cancellation';
import { refuseWhileIncreaseInProgress, withoutIncreaseClaim } from './incremental-authorization';
import { findCurrentPaymentOrThrow, LOST, withCurrentPayment } from './open-authorization';
import { latestAttemptOf } from './payment-attempts';
import { cancelledByRequest, refuseWhileRailHoldChanging, voidInProgress, withVoid } from './rail-hold-changes';
import { holdChangeLease, recoverHoldChanges, settleVoid } from './settle-hold-change';

/** What a round of the cancel came to: cancelled (or answered) here, or a void to ask of the rail. */
type CancelStep =
  | { cancelled: PaymentRecord }
  | { voiding: { payment: PaymentRecord; attemptId: string; reference: string; voidAuthorization: NonNullable<RailAdapter['voidAuthorization']> } };

/**
 * POST /payments/{payment_id}/cancel (secret key): `cancelled` from the statuses the transition table allows
 * (requires_payment_method, requires_confirmation, requires_capture, requires_customer_action), else ERR_4003. The
 * status change, the voided attempt and the payment_cancelled outbox event commit in one transaction.
 *
 * The void of an open authorization (requires_capture) goes through the rail (docs/capture.md, "The rail"): the void
 * is first recorded in the payment (nothing capturable any more; captures wait for it), then the rail is asked to
 * release the hold under the void's own reference, and its answer is recorded with the status change and event. Refused by the
 * rail: the payment is as it was, ERR_4003. No answer in time: the payment is answered as it stands (still
 * requires_capture, nothing capturable) and recovery asks the rail later.
 */
export async function cancelPayment(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: CancelPaymentRequest,
): Promise<PaymentRecord> {
  // Derived from the Idempotency-Key in a keyed request: its re-run (after a crash, or a 5xx that released the key)
  // answers the payment its void cancelled, or still voids, instead of refusing a cancelled payment.
  const requestReference = deps.ids.id('holdChangeRequest');
  // An open authorization past its expiry expires first (it is no longer there to void). A write of another request
  // between the read and the update (a status change, an increase's claim) is read again.
  const result = await withCurrentPayment<CancelStep>(deps, auth, paymentId, async (payment) => {
    // A capture or void whose request died is settled first.
    if ((await recoverHoldChanges(deps, payment)) !== payment) return LOST;
    if (cancelledByRequest(payment) === requestReference || voidInProgress(payment)?.request_reference === requestReference) return { cancelled: payment };
    const decision = decideTransition(payment.status, 'cancel', { hasPaymentMethodData: payment.paymentMethodData !== null, captureMethod: payment.captureMethod });
    if (!decision.allowed) throw new ApiError('ERR_4003', `You cannot cancel this payment because it has status ${payment.status}.`);
    const now = deps.clock.now();
    refuseWhileIncreaseInProgress(payment, now, 'cancel');
    refuseWhileRailHoldChanging(payment, 'cancel');
    const adapter = payment.status === 'requires_capture' ? railAdapterOf(deps, payment) : undefined;
    const voidAuthorization = adapter?.voidAuthorization?.bind(adapter);
    if (voidAuthorization !== undefined) {
      const attempt = await latestAttemptOf(deps.store, payment);
      const entry = { attempt_id: attempt.attemptId, reference: `${attempt.attemptId}_void_${requestReference}`, request_reference: requestReference, cancellation_reason: body.cancellation_reason, restores: payment.amountCapturable, lease_expires_at: holdChangeLease(deps, now) };
      const next = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        amountCapturable: 0,
        railState: withVoid(withoutIncreaseClaim(payment.railState), entry),
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      return { voiding: { payment: next, attemptId: attempt.attemptId, reference: entry.reference, voidAuthorization } };
    }
    // Nothing held at a rail (or a rail that releases holds itself): cancelled here.
    const cancelled = await recordCancellation(deps, auth, payment, { to: decision.to, reason: body.cancellation_reason, requestReference, railState: payment.railState }, now);
    return cancelled === LOST ? LOST : { cancelled };
  });
  if ('cancelled' in result) return result.cancelled;

  const { payment, attemptId, reference, voidAuthorization } = result.voiding;
  const call = await callRail(deps, () =>
    voidAuthorization({ accountId: auth.accountId, mode: auth.mode, paymentId, attemptId, reference, railReference: payment.railReference, now: deps.clock.now() }),
  );
  // No answer: not claimed as cancelled; the void stays recorded until recovery learns what the rail did.
  if (call.kind === 'no_answer') return findCurrentPaymentOrThrow(deps, auth, paymentId);
  const settled = await settleVoid(deps, auth, paymentId, call.answer);
  if (call.answer.kind === 'declined') {
    throw new ApiError('ERR_4003', `The rail refused to void this payment's authorization (${call.answer.errorCode}: ${call.answer.errorMessage}); the payment is unchanged.`);
  }
  return settled;
}
