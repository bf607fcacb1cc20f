import type { PostSessionTokensRequest, PostSessionTokensResponse } from '../../../../protocol/api/card-ops';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { cardRailAdapter } from './card-rail';
import { findPaymentOfCaller } from './find-payment';
import { UPDATABLE_STATUSES } from './update-payment';

/**
 * POST /payments/{payment_id}/post_session_tokens (publishable key with the payment's client_secret): opens the
 * wallet order the client SDK needs before it confirms (PayPal in the simulator) and answers it as next_action
 * invoke_sdk_client. The payment's status does not change; confirm still takes the payment. A wallet the card
 * acquirer does not open orders for answers ERR_4004; a payment past confirm, ERR_4003.
 */
export async function postSessionTokens(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: PostSessionTokensRequest,
): Promise<PostSessionTokensResponse> {
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);
  if (!UPDATABLE_STATUSES.includes(payment.status)) {
    throw new ApiError('ERR_4003', `Session tokens are posted before confirm; this payment has status ${payment.status}.`);
  }
  if (body.payment_method !== 'wallet') {
    throw new ApiError('ERR_4004', 'post_session_tokens opens wallet orders: payment_method must be wallet.', { fieldName: 'payment_method' });
  }
  const order = cardRailAdapter(deps, auth, payment.currency)?.openWalletOrder?.({
    accountId: auth.accountId,
    mode: auth.mode,
    paymentId: payment.paymentId,
    amount: payment.amount,
    currency: payment.currency,
    wallet: body.payment_method_type,
    now: deps.clock.now(),
  });
  if (order === undefined) {
    throw new ApiError('ERR_4004', `Wallet ${body.payment_method_type} is not available for this payment.`, { fieldName: 'payment_method_type' });
  }
  return {
    payment_id: payment.paymentId,
    next_action: { type: 'invoke_sdk_client', next_action_data: { wallet_name: body.payment_method_type, order_id: order.orderId, next_action: 'confirm' } },
    status: payment.status,
  };
}
