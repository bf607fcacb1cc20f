import { VAULT_LIMITS, type CreateVaultTokenRequest, type CreateVaultTokenResponse } from '../../../../protocol/api/vault';
import { paymentIdFromClientSecret } from '../../../../protocol/ids';
import type { ConfirmPaymentRequest } from '../../../../protocol/api/payments';
import { clientSecretMismatchOfUnknown, verifyClientSecret } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { chooseRail } from '../payments/payment-method';
import { statusesAllowing } from '../payments/payment-transitions';

/** "YY" -> "20YY"; "YYYY" unchanged. */
function fullYear(year: string): string {
  return year.length === 2 ? `20${year}` : year;
}

/**
 * POST /vault/tokens (publishable key + client_secret, from the frame's origin only; the route checks Origin).
 * Mints a single-use psp_token for the payment the client_secret belongs to, bound to account, mode and payment,
 * expiring at most 15 minutes later and never after the client_secret. Refused when the payment is not
 * confirmable (ERR_4003) or the account has no card acquirer for it (ERR_4004): card data is only stored when it
 * can be used.
 */
export async function createPspToken(deps: CoreDeps, auth: AuthContext, body: CreateVaultTokenRequest): Promise<CreateVaultTokenResponse> {
  const now = deps.clock.now();
  const paymentId = paymentIdFromClientSecret(body.client_secret);
  const payment = paymentId === undefined ? undefined : await deps.store.payments.findPayment(auth, paymentId);
  if (payment === undefined) throw clientSecretMismatchOfUnknown(paymentId ?? '', body.client_secret);
  verifyClientSecret(payment, body.client_secret, now);
  if (!statusesAllowing('confirm').includes(payment.status)) {
    throw new ApiError('ERR_4003', `You cannot add a card to this payment because it has status ${payment.status}.`);
  }
  const allowedTypes = payment.requestFields['allowed_payment_method_types'] as ConfirmPaymentRequest['allowed_payment_method_types'];
  chooseRail(auth.account.settings, deps.rails, auth.mode, payment.currency, { paymentMethod: 'card', paymentMethodType: null }, payment.captureMethod, allowedTypes);
  if (deps.vault === undefined) {
    throw new ApiError('ERR_4004', 'Card payments are not available on this server (no vault is configured).', { fieldName: 'card_number' });
  }

  // Expiry against the server clock (UTC): valid through the last day of the expiry month.
  const expYear = fullYear(body.card_exp_year);
  const currentYear = now.getUTCFullYear();
  const year = Number(expYear);
  const month = Number(body.card_exp_month);
  if (year < currentYear || year > currentYear + VAULT_LIMITS.maxYearsAhead) {
    throw new ApiError('ERR_2003', `card_exp_year must be between ${currentYear} and ${currentYear + VAULT_LIMITS.maxYearsAhead}.`, {
      fieldName: 'card_exp_year',
    });
  }
  if (year === currentYear && month < now.getUTCMonth() + 1) {
    throw new ApiError('ERR_2003', 'The card has expired (card_exp_month is in the past).', { fieldName: 'card_exp_month' });
  }

  const tokenId = deps.ids.id('pspToken');
  const expiresAt = new Date(Math.min(now.getTime() + VAULT_LIMITS.tokenTtlSeconds * 1000, payment.clientSecretExpiresAt.getTime()));
  const holderName = body.card_holder_name ?? null;
  const record = deps.vault.seal({
    accountId: auth.accountId,
    mode: auth.mode,
    tokenId,
    paymentId: payment.paymentId,
    card: { number: body.card_number, cvc: body.card_cvc, expMonth: body.card_exp_month, expYear, holderName },
    createdAt: now,
    expiresAt,
  });
  if ((await deps.store.vaultTokens.insertToken(record)) === 'duplicate') {
    throw new Error('generated psp_token collided with an existing one');
  }
  return {
    psp_token: tokenId,
    expires_at: expiresAt.toISOString(),
    card: {
      last4: record.last4,
      card_network: record.cardNetwork,
      exp_month: record.expMonth,
      exp_year: record.expYear,
      card_holder_name: holderName,
    },
  };
}
