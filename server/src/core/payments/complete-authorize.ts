import type { CompleteAuthorizeRequest } from '../../../../protocol/api/card-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { externalThreeDsAdapter } from './authenticate-external-three-ds';
import { findPaymentOfCaller } from './find-payment';
import { applyRailOutcome } from './payment-outcome';
import { settlePendingSave } from '../mandates/save-for-future-usage';

/**
 * POST /payments/{payment_id}/complete_authorize (publishable key with the payment's client_secret): authorizes a
 * card payment whose external 3DS authentication succeeded (transStatus Y). The rail's answer moves the payment
 * through the transition table (succeeded, requires_capture or failed) with its event. Before the authentication
 * succeeded (none yet, or a challenge still open) it answers ERR_4017 and changes nothing; `shipping`, when sent,
 * is kept on the payment with the outcome.
 */
export async function completeAuthorize(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: CompleteAuthorizeRequest,
): Promise<PaymentRecord> {
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);
  const { adapter, railReference } = externalThreeDsAdapter(deps, payment, 'complete the authorization of');
  const outcome = await adapter.completeAuthorization?.({
    accountId: auth.accountId,
    mode: auth.mode,
    paymentId: payment.paymentId,
    amount: payment.amount,
    railReference,
    railState: payment.railState,
    now: deps.clock.now(),
  });
  if (outcome === undefined || outcome.kind === 'pending') {
    throw new ApiError('ERR_4017', 'The 3DS authentication of this payment has not succeeded yet: authenticate it first (POST /payments/{payment_id}/3ds/authentication), or finish its challenge.');
  }
  return applyRailOutcome(deps, payment, outcome, 'rail_sync', async (tx, next, kind, now) => {
    const settled = await settlePendingSave(deps, tx, next, kind, now);
    if (body.shipping === undefined) return settled;
    const shipped = await tx.payments.updatePaymentIfVersion(settled, settled.paymentId, settled.version, {
      requestFields: { ...settled.requestFields, shipping: body.shipping },
      updatedAt: now,
    });
    return shipped ?? settled;
  });
}
