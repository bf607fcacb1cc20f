import type { CreateCustomerRequest } from '../../../../protocol/api/customers';
import type { CustomerRecord } from '../../storage/customers/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { deletedCustomerIdError } from './find-live-customer';

/**
 * POST /customers (secret key). customer_id is generated (`cus_` + 20) when omitted. A customer_id that already
 * names a customer returns that customer as stored, and the body is ignored (spec: "an existing customer returns
 * its details"); the id of a deleted customer is refused with ERR_4020.
 */
export async function createCustomer(deps: CoreDeps, auth: AuthContext, body: CreateCustomerRequest): Promise<CustomerRecord> {
  const customerId = body.customer_id ?? deps.ids.id('customer');
  if (body.customer_id != null) {
    const existing = await deps.store.customers.findCustomer(auth, customerId);
    if (existing !== undefined) return existingOrRefuse(existing);
  }
  const now = deps.clock.now();
  const customer: CustomerRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    customerId,
    name: body.name ?? null,
    email: body.email ?? null,
    phone: body.phone ?? null,
    phoneCountryCode: body.phone_country_code ?? null,
    description: body.description ?? null,
    address: body.address ?? null,
    metadata: body.metadata ?? null,
    taxRegistrationId: body.tax_registration_id ?? null,
    documentDetails: body.document_details ?? null,
    defaultPaymentMethodId: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  if ((await deps.store.customers.insertCustomer(customer)) === 'duplicate') {
    // A concurrent create with the same customer_id won: answer with what it stored.
    const existing = await deps.store.customers.findCustomer(auth, customerId);
    if (existing === undefined) throw new Error(`customer ${customerId} reported duplicate but not found`);
    return existingOrRefuse(existing);
  }
  return customer;
}

function existingOrRefuse(existing: CustomerRecord): CustomerRecord {
  if (existing.deletedAt !== null) throw deletedCustomerIdError(existing.customerId);
  return existing;
}
