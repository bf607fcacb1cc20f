import type { CustomerPaymentMethodsQuery, CustomerPaymentMethodsResponse } from '../../../../protocol/api/payment-methods';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toCustomerPaymentMethod } from './payment-method-view';
import { paymentOfClientSecret } from './payment-of-client-secret';

/** Largest list served (the saved methods of one customer; docs/open-points.md). */
const MAX_METHODS = 100;

async function listOf(deps: CoreDeps, auth: AuthContext, customerId: string, query: CustomerPaymentMethodsQuery): Promise<CustomerPaymentMethodsResponse> {
  const customer = await findLiveCustomer(deps.store, auth, customerId);
  let methods = await deps.store.storedPaymentMethods.listStoredPaymentMethodsOfCustomer(auth, customerId, MAX_METHODS);
  if (query.recurring_enabled !== undefined) methods = methods.filter((m) => m.recurringEnabled === (query.recurring_enabled === 'true'));
  if (query.installment_payment_enabled === 'true') methods = [];
  if (query.limit !== undefined) methods = methods.slice(0, query.limit);
  return {
    customer_payment_methods: methods.map((method) => toCustomerPaymentMethod(method, customerId, customer.defaultPaymentMethodId)),
    is_guest_customer: false,
  };
}

/** GET /customers/{customer_id}/payment_methods (secret key): the customer's saved methods, newest first. */
export async function listPaymentMethodsOfCustomer(
  deps: CoreDeps,
  auth: AuthContext,
  customerId: string,
  query: CustomerPaymentMethodsQuery,
): Promise<CustomerPaymentMethodsResponse> {
  if (query.client_secret !== undefined) {
    throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', { fieldName: 'client_secret' });
  }
  return listOf(deps, auth, customerId, query);
}

/**
 * GET /customers/payment_methods (publishable key + client_secret): the saved methods of the payment's customer; a
 * payment without a customer is a guest checkout (an empty list, is_guest_customer true).
 */
export async function listPaymentMethodsForPayment(deps: CoreDeps, auth: AuthContext, query: CustomerPaymentMethodsQuery): Promise<CustomerPaymentMethodsResponse> {
  const payment = await paymentOfClientSecret(deps, auth, query.client_secret);
  if (payment.customerId === null) return { customer_payment_methods: [], is_guest_customer: true };
  return listOf(deps, auth, payment.customerId, query);
}
