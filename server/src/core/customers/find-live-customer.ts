import type { CustomerRecord } from '../../storage/customers/records';
import type { Scope } from '../../kernel/store-types';
import type { Stores } from '../../storage/stores';
import { ApiError } from '../shared/errors';

/** The customer with this id that is not deleted, or ERR_4006. */
export async function findLiveCustomer(stores: Stores, scope: Scope, customerId: string): Promise<CustomerRecord> {
  const customer = await stores.customers.findCustomer(scope, customerId);
  if (customer === undefined || customer.deletedAt !== null) {
    throw new ApiError('ERR_4006', 'No such customer exists for this account and mode.');
  }
  return customer;
}

/** ERR_4020: a deleted customer's id is never given to a new customer. */
export function deletedCustomerIdError(customerId: string, fieldName = 'customer_id'): ApiError {
  return new ApiError('ERR_4020', 'customer_id belonged to a deleted customer and cannot be reused.', { fieldName });
}
