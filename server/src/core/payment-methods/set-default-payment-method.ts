import type { DefaultPaymentMethodResponse } from '../../../../protocol/api/payment-methods';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * POST /customers/{customer_id}/payment_methods/{payment_method_id}/default (an ephemeral key of that customer):
 * the customer's default_payment_method_id becomes this method, which must be one of the customer's. The customer's
 * row is held while the method is read and the default written, as a delete of the method holds it
 * (delete-payment-method.ts): a method deleted meanwhile is never left as the default.
 */
export async function setDefaultPaymentMethod(
  deps: CoreDeps,
  auth: AuthContext,
  customerId: string,
  paymentMethodId: string,
): Promise<DefaultPaymentMethodResponse> {
  if (auth.keyKind === 'ephemeral' && auth.customerId !== customerId) {
    throw new ApiError('ERR_4006', 'No such customer exists for this ephemeral key.');
  }
  const now = deps.clock.now();
  const method = await deps.store.transaction(async (tx) => {
    if ((await tx.customers.holdLiveCustomer(auth, customerId)) === undefined) {
      throw new ApiError('ERR_4006', 'No such customer exists for this account and mode.');
    }
    const found = await tx.storedPaymentMethods.findStoredPaymentMethod(auth, paymentMethodId);
    if (found === undefined || found.customerId !== customerId) {
      throw new ApiError('ERR_4100', 'No such stored payment method exists for this customer.');
    }
    await tx.customers.updateCustomer(auth, customerId, { defaultPaymentMethodId: paymentMethodId, updatedAt: now });
    return found;
  });
  return {
    default_payment_method_id: paymentMethodId,
    customer_id: customerId,
    payment_method: method.paymentMethod,
    payment_method_type: method.paymentMethodType,
  };
}
