import type { EligibilityRequest, EligibilityResponse } from '../../../../protocol/api/payment-ops';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOfCaller } from './find-payment';
import { ApiError } from '../shared/errors';
import { chooseRail, resolvePaymentMethod } from './payment-method';
import { UPDATABLE_STATUSES } from './update-payment';

/** Field names of the eligibility body for the method fields that resolvePaymentMethod names. */
const ELIGIBILITY_FIELD: Record<string, string> = {
  payment_method: 'payment_method_type',
  payment_method_type: 'payment_method_subtype',
};

/**
 * POST /payments/{payment_id}/eligibility (publishable key with the payment's client_secret): tells the client
 * runtime whether to go on and confirm with this payment method (`confirm`) or not (`{deny: {message}}`), before
 * any money moves. A payment no longer awaiting a payment method answers ERR_4003.
 */
export async function submitEligibility(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: EligibilityRequest,
): Promise<EligibilityResponse> {
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);
  if (!UPDATABLE_STATUSES.includes(payment.status)) {
    throw new ApiError('ERR_4003', `Eligibility is checked before confirm; this payment has status ${payment.status}.`);
  }
  let method;
  try {
    method = resolvePaymentMethod(body.payment_method_data, body.payment_method_type, body.payment_method_subtype);
  } catch (error) {
    if (error instanceof ApiError && error.fieldName !== undefined && ELIGIBILITY_FIELD[error.fieldName] !== undefined) {
      throw new ApiError(error.code, error.message.replace(error.fieldName, ELIGIBILITY_FIELD[error.fieldName] ?? error.fieldName), {
        fieldName: ELIGIBILITY_FIELD[error.fieldName],
      });
    }
    throw error;
  }
  const allowedTypes = payment.requestFields['allowed_payment_method_types'] as Parameters<typeof chooseRail>[6];
  try {
    chooseRail(auth.account.settings, deps.rails, auth.mode, payment.currency, method, payment.captureMethod, allowedTypes);
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'ERR_4004' || error.code === 'ERR_4012' || error.code === 'ERR_3010')) {
      return { payment_id: payment.paymentId, sdk_next_action: { next_action: { deny: { message: error.message } } } };
    }
    throw error;
  }
  return { payment_id: payment.paymentId, sdk_next_action: { next_action: 'confirm' } };
}
