import type { CustomerDeleteResponse } from '../../../../protocol/api/customers';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * DELETE /customers/{customer_id} (secret key). In one transaction the customer becomes a tombstone (every
 * personal field, the address included, cleared; retrieve, update and delete answer ERR_4006 afterwards; the id
 * is never reused, ERR_4020) and its ephemeral keys are deleted. Stored payment methods of the customer are
 * removed in the same transaction once they exist (the stored-method store adds its delete here).
 */
export async function deleteCustomer(deps: CoreDeps, auth: AuthContext, customerId: string): Promise<CustomerDeleteResponse> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    const deleted = await tx.customers.markCustomerDeleted(auth, customerId, now);
    if (deleted === undefined) throw new ApiError('ERR_4006', 'No such customer exists for this account and mode.');
    await tx.ephemeralKeys.deleteEphemeralKeysOfCustomer(auth, customerId);
  });
  return { customer_id: customerId, customer_deleted: true, address_deleted: true, payment_methods_deleted: true };
}
