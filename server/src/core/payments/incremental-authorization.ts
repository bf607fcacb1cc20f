import type { IncrementalAuthorizationRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail } from '../shared/rail-call';
import { railAdapterOf } from './authorization-validity';
import { requireManualCaptureOperation } from './manual-capture';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';

/**
 * POST /payments/{payment_id}/incremental_authorization (secret key), on a requires_capture payment of a rail with
 * manual capture. `amount` is the new total authorized amount (spec), above the one authorized now (else ERR_2003).
 * The rail is asked; granted, the payment's amount and amount_capturable become the new total (status stays
 * requires_capture, event payment_authorized); refused, ERR_4015 and nothing changes. A rail that does not answer
 * in time leaves the authorization as it was (the payment is returned unchanged).
 */
export async function incrementalAuthorization(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: IncrementalAuthorizationRequest,
): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
    requireManualCaptureOperation(auth, payment, 'incremental_authorization');
    const decision = decideTransition(payment.status, 'incremental_authorization', {
      hasPaymentMethodData: true,
      captureMethod: payment.captureMethod,
      increment: { authorized: payment.amount, requested: body.amount },
    });
    if (!decision.allowed) {
      throw new ApiError('ERR_2003', `amount is the new total to authorize and must exceed the amount authorized now (${payment.amount}).`, {
        fieldName: 'amount',
      });
    }
    const adapter = railAdapterOf(deps, payment);
    const increment = adapter?.incrementAuthorization?.bind(adapter);
    if (increment === undefined) {
      throw new ApiError('ERR_4003', `You cannot increase the authorization of this payment: the ${payment.rail ?? 'payment'} rail does not raise authorizations.`);
    }
    const attempts = await deps.store.attempts.listAttempts(auth, paymentId);
    const now = deps.clock.now();
    const call = await callRail(deps, () =>
      increment({
        accountId: auth.accountId,
        mode: auth.mode,
        paymentId,
        railReference: payment.railReference,
        originalAmount: attempts[attempts.length - 1]?.amount ?? payment.amount,
        currentAmount: payment.amount,
        newAmount: body.amount,
        currency: payment.currency,
        now,
      }),
    );
    if (call.kind === 'no_answer') return payment;
    if (call.answer.kind === 'declined') {
      throw new ApiError('ERR_4015', `The rail refused to raise the authorization to ${body.amount}: ${call.answer.errorMessage}.`, { fieldName: 'amount' });
    }
    return deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        status: decision.to,
        amount: body.amount,
        amountCapturable: body.amount,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
  });
}
