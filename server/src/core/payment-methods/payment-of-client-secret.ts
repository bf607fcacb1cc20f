import { paymentIdFromClientSecret } from '../../../../protocol/ids';
import type { PaymentRecord } from '../../storage/payments/records';
import { authorizePaymentAccess, clientSecretMismatchOfUnknown, missingClientSecret } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * The payment a publishable key's client_secret names (ERR_2001 without one, ERR_1005 when it names no payment of
 * this account and mode or is not that payment's, ERR_1006 expired).
 */
export async function paymentOfClientSecret(deps: CoreDeps, auth: AuthContext, clientSecret: string | undefined): Promise<PaymentRecord> {
  if (clientSecret === undefined) throw missingClientSecret();
  const paymentId = paymentIdFromClientSecret(clientSecret);
  const payment = paymentId === undefined ? undefined : await deps.store.payments.findPayment(auth, paymentId);
  if (payment === undefined) throw clientSecretMismatchOfUnknown(paymentId ?? '', clientSecret);
  authorizePaymentAccess(auth, payment, clientSecret, deps.clock.now());
  return payment;
}

/** A secret-key call must not carry a client_secret (ERR_1007, one rule for every operation). */
export function refuseClientSecretWithSecretKey(auth: AuthContext, clientSecret: string | undefined): void {
  if (auth.keyKind === 'secret' && clientSecret !== undefined) {
    throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', { fieldName: 'client_secret' });
  }
}
