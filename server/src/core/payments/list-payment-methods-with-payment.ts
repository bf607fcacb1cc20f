import type { ListPaymentMethodsQuery, ListPaymentMethodsResponse, PaymentMethodsWithPaymentResponse } from '../../../../protocol/api/account';
import { paymentIdFromClientSecret } from '../../../../protocol/ids';
import { listPaymentMethods } from '../accounts/list-payment-methods';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { retrievePaymentResponse } from './retrieve-payment';

/**
 * GET /account/payment_methods, and with `expand_payment=true` the payment its client_secret names as well (as
 * GET /payments/{id} answers it: synced with its rail). The payment element loads with this one request instead of
 * two, which also saves a CORS preflight per mount (issue 17 §4).
 */
export async function listPaymentMethodsWithPayment(
  deps: CoreDeps,
  auth: AuthContext,
  query: ListPaymentMethodsQuery,
): Promise<ListPaymentMethodsResponse | PaymentMethodsWithPaymentResponse> {
  const { expand_payment: expandPayment, ...listQuery } = query;
  if (expandPayment !== 'true') return listPaymentMethods(deps, auth, listQuery);
  if (query.client_secret === undefined) {
    throw new ApiError('ERR_2001', 'expand_payment=true needs the client_secret of the payment to expand.', { fieldName: 'client_secret' });
  }
  // The list checks the client_secret first, so both forms of the request answer the same errors.
  const list = await listPaymentMethods(deps, auth, listQuery);
  const payment = await retrievePaymentResponse(deps, auth, paymentIdFromClientSecret(query.client_secret)!, { client_secret: query.client_secret });
  return Object.assign(list, { payment });
}
