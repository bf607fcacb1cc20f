import type { CustomerDeleteResponse } from '../../../../protocol/api/customers';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { revokeMandatesOfCustomer } from '../mandates/revoke-mandate';

/**
 * DELETE /customers/{customer_id} (secret key). In one transaction the customer becomes a tombstone (every
 * personal field, the address included, cleared; retrieve, update and delete answer ERR_4006 afterwards; the id
 * is never reused, ERR_4020), its ephemeral keys, stored payment methods and the instruments its waiting payments
 * sealed to save are deleted, and its active mandates are revoked (each with its mandate_revoked event).
 */
export async function deleteCustomer(deps: CoreDeps, auth: AuthContext, customerId: string): Promise<CustomerDeleteResponse> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    const deleted = await tx.customers.markCustomerDeleted(auth, customerId, now);
    if (deleted === undefined) throw new ApiError('ERR_4006', 'No such customer exists for this account and mode.');
    await tx.ephemeralKeys.deleteEphemeralKeysOfCustomer(auth, customerId);
    await tx.storedPaymentMethods.deleteStoredPaymentMethodsOfCustomer(auth, customerId);
    // A waiting payment's sealed instrument too: it would save nothing for a deleted customer when the payment settles.
    await tx.pendingMethodSaves.deletePendingSavesOfCustomer(auth, customerId);
    await revokeMandatesOfCustomer(deps, tx, auth, customerId, now);
  });
  return { customer_id: customerId, customer_deleted: true, address_deleted: true, payment_methods_deleted: true };
}
