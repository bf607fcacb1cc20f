import type { PaymentMethodDeleteResponse } from '../../../../protocol/api/payment-methods';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { revokeMandatesOfCustomer } from '../mandates/revoke-mandate';

/**
 * DELETE /payment_methods/{method_id} (secret key). The row goes (with the card ciphertext); a customer whose default
 * it was has no default afterwards, and its active mandates are revoked (each with its mandate_revoked event). The
 * customer's row is held first, as a set-default holds it (set-default-payment-method.ts): of the two, the later one
 * sees what the earlier one wrote.
 */
export async function deletePaymentMethod(deps: CoreDeps, auth: AuthContext, paymentMethodId: string): Promise<PaymentMethodDeleteResponse> {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    const method = await tx.storedPaymentMethods.findStoredPaymentMethod(auth, paymentMethodId);
    // A method's customer never changes; a deleted customer's methods are gone with it.
    const customer = method?.customerId == null ? undefined : await tx.customers.holdLiveCustomer(auth, method.customerId);
    const deleted = await tx.storedPaymentMethods.deleteStoredPaymentMethod(auth, paymentMethodId);
    if (deleted === undefined) throw new ApiError('ERR_4100', 'No such stored payment method exists for this account and mode.');
    if (deleted.customerId !== null) {
      if (customer?.defaultPaymentMethodId === paymentMethodId) {
        await tx.customers.updateCustomer(auth, deleted.customerId, { defaultPaymentMethodId: null, updatedAt: now });
      }
      await revokeMandatesOfCustomer(deps, tx, auth, deleted.customerId, now, paymentMethodId);
    }
  });
  return { payment_method_id: paymentMethodId, deleted: true };
}
