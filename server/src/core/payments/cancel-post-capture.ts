import type { CancelPostCaptureRequest } from '../../../../protocol/api/payment-ops';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail } from '../shared/rail-call';
import { railAdapterOf } from './authorization-validity';
import { requireManualCaptureOperation } from './manual-capture';
import { findCurrentPaymentOrThrow, LOST, withCurrentPayment } from './open-authorization';
import { latestAttemptOf } from './payment-attempts';
import { decideTransition } from './payment-transitions';
import { recordCancellation } from './record-cancellation';
import { cancelledByRequest, cancelPostCaptureInProgress, refuseWhileRailHoldChanging, withCancelPostCapture } from './rail-hold-changes';
import { cancelCapturesRequest, holdChangeLease, recoverHoldChanges, settleCancelPostCapture } from './settle-hold-change';

type CancelPostCaptureStep = { cancelled: PaymentRecord } | { cancelling: { payment: PaymentRecord; cancelCaptures: NonNullable<RailAdapter['cancelCaptures']> } };

/**
 * POST /payments/{payment_id}/cancel_post_capture (secret key): voids what was captured, before settlement, on a
 * rail with manual capture (spec States table): succeeded, partially_captured or partially_captured_and_capturable
 * become `cancelled_post_capture`, only while the payment has no refund (Hyperswitch) and no dispute that holds money
 * (opened, challenged, lost, accepted; ERR_4003 otherwise). Nothing stays capturable; amount_received keeps what had
 * been captured; the newest attempt is voided. One transaction with the event.
 *
 * The rail took the captures, so it is asked to reverse them and release the rest (docs/capture.md, "The rail"), as
 * the void is: recorded on the payment first (nothing capturable any more), asked under its own reference, its answer
 * recorded with the status change and event; refused: ERR_4003 with the rail's reason and nothing changed; no answer:
 * the payment as it stands, recovery asks later. A rail that takes captures but cannot cancel them refuses it
 * (ERR_4003); on one that takes no captures it is recorded here only.
 */
export async function cancelPostCapture(deps: CoreDeps, auth: AuthContext, paymentId: string, body: CancelPostCaptureRequest): Promise<PaymentRecord> {
  // Derived from the Idempotency-Key in a keyed request: its re-run answers the payment its cancel cancelled.
  const requestReference = deps.ids.id('holdChangeRequest');
  const result = await withCurrentPayment<CancelPostCaptureStep>(deps, auth, paymentId, async (payment) => {
    if ((await recoverHoldChanges(deps, payment)) !== payment) return LOST;
    if (cancelledByRequest(payment) === requestReference || cancelPostCaptureInProgress(payment)?.request_reference === requestReference) return { cancelled: payment };
    requireManualCaptureOperation(auth, payment, 'cancel_post_capture');
    refuseWhileRailHoldChanging(payment, 'cancel after capture');
    // Read after the payment: a refund reserved or a dispute raised later changes the payment's version, so the write
    // below loses and the next round sees it.
    const refunded = (await deps.store.refunds.findRefundedAmount(auth, paymentId)) ?? 0;
    const disputed = (await deps.store.disputes.findDisputedAmount(auth, paymentId)) ?? 0;
    const decision = decideTransition(payment.status, 'cancel_post_capture', { hasPaymentMethodData: true, captureMethod: payment.captureMethod, refunded, disputed });
    if (!decision.allowed) throw notCancellable(payment, refunded, disputed);
    const now = deps.clock.now();
    const reason = body.cancellation_reason ?? null;
    const adapter = railAdapterOf(deps, payment);
    const cancelCaptures = adapter?.cancelCaptures?.bind(adapter);
    if (cancelCaptures === undefined && adapter?.capture !== undefined) {
      throw new ApiError('ERR_4003', `You cannot cancel this payment after capture: the ${payment.rail ?? 'payment'} rail cannot cancel the captures it took.`);
    }
    if (cancelCaptures !== undefined) {
      const attempt = await latestAttemptOf(deps.store, payment);
      const entry = {
        attempt_id: attempt.attemptId,
        request_reference: requestReference,
        reference: `${attempt.attemptId}_cpc_${requestReference}`,
        cancellation_reason: reason,
        restores: payment.amountCapturable,
        lease_expires_at: holdChangeLease(deps, now),
      };
      const next = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        amountCapturable: 0,
        railState: withCancelPostCapture(payment.railState, entry),
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      return { cancelling: { payment: next, cancelCaptures } };
    }
    // A rail that takes no captures (nothing moved at it): recorded here.
    const cancelled = await recordCancellation(deps, auth, payment, { to: decision.to, reason, requestReference, railState: payment.railState }, now);
    return cancelled === LOST ? LOST : { cancelled };
  });
  if ('cancelled' in result) return result.cancelled;

  const { payment, cancelCaptures } = result.cancelling;
  const entry = cancelPostCaptureInProgress(payment);
  if (entry === undefined) throw new Error(`payment ${paymentId} lost its cancel after capture`);
  const call = await callRail(deps, () => cancelCaptures(cancelCapturesRequest(payment, entry, deps.clock.now())));
  // No answer: not claimed; the cancel stays recorded until recovery learns what the rail did.
  if (call.kind === 'no_answer') return findCurrentPaymentOrThrow(deps, auth, paymentId);
  const settled = await settleCancelPostCapture(deps, auth, paymentId, call.answer);
  if (call.answer.kind === 'declined') {
    throw new ApiError('ERR_4003', `The rail refused to cancel this payment after capture (${call.answer.errorCode}: ${call.answer.errorMessage}); the payment is unchanged.`);
  }
  return settled;
}

function notCancellable(payment: PaymentRecord, refunded: number, disputed: number): ApiError {
  if (decideTransition(payment.status, 'cancel_post_capture', { hasPaymentMethodData: true, captureMethod: payment.captureMethod, refunded: 0, disputed: 0 }).allowed) {
    const held = refunded > 0 ? `${refunded} of it has been refunded` : `${disputed} of it is held by a dispute (opened, challenged, lost or accepted)`;
    return new ApiError('ERR_4003', `You cannot cancel this payment after capture: ${held}.`);
  }
  return new ApiError('ERR_4003', `You cannot cancel this payment after capture because it has status ${payment.status}.`);
}
