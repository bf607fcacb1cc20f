import type { CancelPostCaptureRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { requireManualCaptureOperation } from './manual-capture';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import { refuseWhileRailHoldChanging } from './rail-hold-changes';

/**
 * POST /payments/{payment_id}/cancel_post_capture (secret key): voids what was captured, before settlement, on a
 * rail with manual capture (spec States table): succeeded, partially_captured or partially_captured_and_capturable
 * become `cancelled_post_capture`, only while the payment has no refund (Hyperswitch) and no dispute that holds money
 * (opened, challenged, lost, accepted; ERR_4003 otherwise). Nothing stays capturable; amount_received keeps what had
 * been captured; the newest attempt is voided. One transaction with the event.
 */
export async function cancelPostCapture(deps: CoreDeps, auth: AuthContext, paymentId: string, body: CancelPostCaptureRequest): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
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
    return deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        status: decision.to,
        amountCapturable: 0,
        cancellationReason: reason,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      await tx.attempts.updateLatestAttempt(auth, paymentId, { status: 'voided', cancellationReason: reason, updatedAt: now });
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
  });
}

function notCancellable(payment: PaymentRecord, refunded: number, disputed: number): ApiError {
  if (decideTransition(payment.status, 'cancel_post_capture', { hasPaymentMethodData: true, captureMethod: payment.captureMethod, refunded: 0, disputed: 0 }).allowed) {
    const held = refunded > 0 ? `${refunded} of it has been refunded` : `${disputed} of it is held by a dispute (opened, challenged, lost or accepted)`;
    return new ApiError('ERR_4003', `You cannot cancel this payment after capture: ${held}.`);
  }
  return new ApiError('ERR_4003', `You cannot cancel this payment after capture because it has status ${payment.status}.`);
}
