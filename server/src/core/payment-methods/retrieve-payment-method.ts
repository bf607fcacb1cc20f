import type { StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findStoredPaymentMethodOrThrow } from './find-payment-method';

/** GET /payment_methods/{method_id} (secret key). */
export async function retrievePaymentMethod(deps: CoreDeps, auth: AuthContext, paymentMethodId: string): Promise<StoredPaymentMethodRecord> {
  return findStoredPaymentMethodOrThrow(deps.store, auth, paymentMethodId);
}
