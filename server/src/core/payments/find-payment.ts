import type { PaymentRecord } from '../../storage/payments/records';
import type { Scope } from '../../kernel/store-types';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { authorizePaymentAccess, clientSecretMismatchOfUnknown, missingClientSecret } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';

/**
 * The payment with this id in the caller's account and mode, or ERR_4001. The message never repeats the id: ids
 * come from the caller and can be anything, a card number included (docs/security.md).
 */
export async function findPaymentOrThrow(deps: CoreDeps, scope: Scope, paymentId: string, fieldName?: string): Promise<PaymentRecord> {
  const payment = await deps.store.payments.findPayment(scope, paymentId);
  if (payment === undefined) {
    throw new ApiError('ERR_4001', 'No such payment exists for this account and mode.', fieldName === undefined ? {} : { fieldName });
  }
  return payment;
}

/**
 * The payment a call about one payment reaches (api-conventions §2, docs/security.md). A secret key: any of its
 * account and mode (ERR_4001 otherwise), without a client_secret (ERR_1007). A publishable key: only the payment
 * whose client_secret it presents: ERR_2001 without one, before anything is read, and ERR_1005 alike for an unknown
 * payment (another account's or mode's included) and for another client_secret, after the same comparison, so that the
 * public key cannot tell which payment ids exist; ERR_1006 once the right one has expired.
 */
export async function findPaymentOfCaller(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  clientSecret: string | undefined,
  fieldName?: string,
): Promise<PaymentRecord> {
  if (auth.keyKind !== 'publishable') {
    const payment = await findPaymentOrThrow(deps, auth, paymentId, fieldName);
    authorizePaymentAccess(auth, payment, clientSecret, deps.clock.now());
    return payment;
  }
  if (clientSecret === undefined) throw missingClientSecret();
  const payment = await deps.store.payments.findPayment(auth, paymentId);
  if (payment === undefined) throw clientSecretMismatchOfUnknown(paymentId, clientSecret);
  authorizePaymentAccess(auth, payment, clientSecret, deps.clock.now());
  return payment;
}
