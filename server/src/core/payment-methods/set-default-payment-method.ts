import type { DefaultPaymentMethodResponse } from '../../../../protocol/api/payment-methods';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * POST /customers/{customer_id}/payment_methods/{payment_method_id}/default (an ephemeral key of that customer):
 * the customer's default_payment_method_id becomes this method, which must be one of the customer's.
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
  await findLiveCustomer(deps.store, auth, customerId);
  const method = await deps.store.storedPaymentMethods.findStoredPaymentMethod(auth, paymentMethodId);
  if (method === undefined || method.customerId !== customerId) {
    throw new ApiError('ERR_4100', 'No such stored payment method exists for this customer.');
  }
  await deps.store.customers.updateCustomer(auth, customerId, { defaultPaymentMethodId: paymentMethodId, updatedAt: deps.clock.now() });
  return {
    default_payment_method_id: paymentMethodId,
    customer_id: customerId,
    payment_method: method.paymentMethod,
    payment_method_type: method.paymentMethodType,
  };
}
