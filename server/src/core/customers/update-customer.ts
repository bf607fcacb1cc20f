import type { UpdateCustomerRequest } from '../../../../protocol/api/customers';
import type { CustomerPatch, CustomerRecord } from '../../storage/customers/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * POST /customers/{customer_id} (secret key). Partial: an omitted field keeps its value, null clears it, and an
 * object field (address, metadata, document_details) is replaced as a whole. customer_id cannot be changed (the
 * schema refuses it as an unknown field).
 */
export async function updateCustomer(
  deps: CoreDeps,
  auth: AuthContext,
  customerId: string,
  body: UpdateCustomerRequest,
): Promise<CustomerRecord> {
  const patch: CustomerPatch = {
    updatedAt: deps.clock.now(),
    ...(body.name !== undefined && { name: body.name }),
    ...(body.email !== undefined && { email: body.email }),
    ...(body.phone !== undefined && { phone: body.phone }),
    ...(body.phone_country_code !== undefined && { phoneCountryCode: body.phone_country_code }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.address !== undefined && { address: body.address }),
    ...(body.metadata !== undefined && { metadata: body.metadata }),
    ...(body.tax_registration_id !== undefined && { taxRegistrationId: body.tax_registration_id }),
    ...(body.document_details !== undefined && { documentDetails: body.document_details }),
  };
  const updated = await deps.store.customers.updateCustomer(auth, customerId, patch);
  if (updated === undefined) throw new ApiError('ERR_4006', 'No such customer exists for this account and mode.');
  return updated;
}
