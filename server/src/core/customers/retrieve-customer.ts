import type { CustomerRecord } from '../../storage/customers/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findLiveCustomer } from './find-live-customer';

/**
 * GET /customers/{customer_id}: a secret key, or an ephemeral key of that very customer. An ephemeral key of
 * another customer gets ERR_4006, as if the customer did not exist (nothing about other customers leaks).
 */
export async function retrieveCustomer(deps: CoreDeps, auth: AuthContext, customerId: string): Promise<CustomerRecord> {
  if (auth.keyKind === 'ephemeral' && auth.customerId !== customerId) {
    throw new ApiError('ERR_4006', 'No such customer exists for this ephemeral key.');
  }
  return findLiveCustomer(deps.store, auth, customerId);
}
