import type { Scope } from '../../kernel/store-types';
import type { StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { Stores } from '../../storage/stores';
import { ApiError } from '../shared/errors';

/** The stored payment method with this id, or ERR_4100. */
export async function findStoredPaymentMethodOrThrow(stores: Stores, scope: Scope, paymentMethodId: string): Promise<StoredPaymentMethodRecord> {
  const method = await stores.storedPaymentMethods.findStoredPaymentMethod(scope, paymentMethodId);
  if (method === undefined) throw new ApiError('ERR_4100', 'No such stored payment method exists for this account and mode.');
  return method;
}
