import type { CancelPaymentRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import { refuseWhileIncreaseInProgress } from './incremental-authorization';
import { LOST, withCurrentPayment } from './open-authorization';

/**
 * POST /payments/{payment_id}/cancel (secret key): `cancelled` from the statuses the transition table allows
 * (requires_payment_method, requires_confirmation, requires_capture, requires_customer_action), else ERR_4003. The
 * status change, the voided attempt and the payment_cancelled outbox event commit in one transaction.
 */
export async function cancelPayment(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: CancelPaymentRequest,
): Promise<PaymentRecord> {
  // An open authorization past its expiry expires first (it is no longer there to void). A write of another request
  // between the read and the update (a status change, an increase's claim) is read again.
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
    const decision = decideTransition(payment.status, 'cancel', { hasPaymentMethodData: payment.paymentMethodData !== null, captureMethod: payment.captureMethod });
    if (!decision.allowed) throw new ApiError('ERR_4003', `You cannot cancel this payment because it has status ${payment.status}.`);
    const now = deps.clock.now();
    refuseWhileIncreaseInProgress(payment, now, 'cancel');
    return deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        status: decision.to,
        amountCapturable: 0,
        nextAction: null,
        cancellationReason: body.cancellation_reason,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      await tx.attempts.updateLatestAttempt(auth, paymentId, { status: 'voided', cancellationReason: body.cancellation_reason, updatedAt: now });
      // A payment cancelled while it waited for the customer saves nothing: its sealed instrument goes.
      await tx.pendingMethodSaves.takePendingSave(auth, paymentId);
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
  });
}
