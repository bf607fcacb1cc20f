import type { CapturePaymentRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentResponse } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { refuseWhileIncreaseInProgress } from './incremental-authorization';
import { requireManualCaptureOperation } from './manual-capture';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import { paymentCustomerDetails } from './payment-customer';
import { toPaymentResponse } from './payment-view';

/**
 * POST /payments/{payment_id}/capture (secret key). Spec Confirm rule 3: amount_to_capture <= amount_capturable,
 * the whole amount_capturable when omitted; a payment that is fully captured or not capturable is refused
 * (ERR_4003, also on rails that capture as they authorize). A capture of the whole authorized amount makes the
 * payment succeeded; a smaller one makes it partially_captured (capture_method manual, or refund_uncaptured_amount:
 * the rest is released) or partially_captured_and_capturable (manual_multiple). The payment change, the capture
 * record and the event commit in one transaction, written only if nothing changed the payment since it was read.
 */
export async function capturePayment(deps: CoreDeps, auth: AuthContext, paymentId: string, body: CapturePaymentRequest): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
    requireManualCaptureOperation(auth, payment, 'capture');
    const amount = body.amount_to_capture ?? payment.amountCapturable;
    if (amount < 1) throw new ApiError('ERR_2003', 'amount_to_capture must be at least 1.', { fieldName: 'amount_to_capture' });
    if (amount > payment.amountCapturable) {
      throw new ApiError('ERR_4014', `amount_to_capture ${amount} exceeds the amount_capturable of this payment (${payment.amountCapturable}).`, {
        fieldName: 'amount_to_capture',
      });
    }
    const capturedTotal = (payment.amountReceived ?? 0) + amount;
    const releaseRest = payment.captureMethod !== 'manual_multiple' || body.refund_uncaptured_amount === true;
    const decision = decideTransition(payment.status, 'capture', {
      hasPaymentMethodData: true,
      captureMethod: payment.captureMethod,
      capture: { amount: payment.amount, capturedTotal, releaseRest },
    });
    if (!decision.allowed) throw new ApiError('ERR_4003', `You cannot capture this payment because it has status ${payment.status}.`);
    const now = deps.clock.now();
    refuseWhileIncreaseInProgress(payment, now, 'capture');

    const captured = await deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        status: decision.to,
        amountReceived: capturedTotal,
        amountCapturable: decision.to === 'partially_captured_and_capturable' ? payment.amountCapturable - amount : 0,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      const attempts = await tx.attempts.listAttempts(auth, paymentId);
      const attempt = attempts[attempts.length - 1];
      if (attempt === undefined) throw new Error(`payment ${paymentId} in ${payment.status} has no attempt`);
      const sequence = (await tx.captures.listCaptures(auth, paymentId)).length + 1;
      await tx.captures.insertCapture({
        accountId: auth.accountId,
        mode: auth.mode,
        // Hyperswitch's capture id: `<attempt_id>_<capture_sequence>`.
        captureId: `${attempt.attemptId}_${sequence}`,
        paymentId,
        attemptId: attempt.attemptId,
        captureSequence: sequence,
        status: 'charged',
        amount,
        currency: payment.currency,
        connector: payment.connector,
        connectorCaptureId: null,
        createdAt: now,
      });
      // The attempt is charged once its authorization is used up (nothing left to capture).
      if (next.amountCapturable === 0) await tx.attempts.updateLatestAttempt(auth, paymentId, { status: 'charged', updatedAt: now });
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
    return captured;
  });
}

/** The capture as the API answers it: the payment with its stored customer (spec: "retrieve and capture responses"). */
export async function capturePaymentResponse(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: CapturePaymentRequest,
): Promise<PaymentResponse> {
  const payment = await capturePayment(deps, auth, paymentId, body);
  const response = toPaymentResponse(payment);
  response.customer = await paymentCustomerDetails(deps, payment);
  return response;
}
