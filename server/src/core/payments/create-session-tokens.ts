import type { SessionTokenRequest, SessionTokenResponse } from '../../../../protocol/api/card-ops';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { cardRailAdapter, requireCardAcquirer } from './card-rail';
import { findPaymentOfCaller } from './find-payment';
import { UPDATABLE_STATUSES } from './update-payment';

/**
 * POST /payments/session_tokens (publishable key with the payment's client_secret): the session token of each
 * wallet in `wallets` that the account's card acquirer offers for this payment, for the client to show its wallet
 * buttons; the others are left out (all of them when the card acquirer does not take the payment's currency).
 * Changes nothing. Only a payment that still awaits its payment method gets tokens (ERR_4003 otherwise); an account
 * without a card acquirer gets ERR_4004.
 */
export async function createSessionTokens(deps: CoreDeps, auth: AuthContext, body: SessionTokenRequest): Promise<SessionTokenResponse> {
  const payment = await findPaymentOfCaller(deps, auth, body.payment_id, body.client_secret, 'payment_id');
  requireCardAcquirer(auth.account.settings, auth.mode);
  if (!UPDATABLE_STATUSES.includes(payment.status)) {
    throw new ApiError('ERR_4003', `Wallet session tokens are for a payment before confirm; this payment has status ${payment.status}.`);
  }
  const adapter = cardRailAdapter(deps, auth, payment.currency);
  const tokens =
    adapter?.walletSessionTokens?.({
      accountId: auth.accountId,
      mode: auth.mode,
      paymentId: payment.paymentId,
      amount: payment.amount,
      currency: payment.currency,
      wallets: body.wallets,
      now: deps.clock.now(),
    }) ?? [];
  return { payment_id: payment.paymentId, client_secret: body.client_secret, session_token: tokens };
}
