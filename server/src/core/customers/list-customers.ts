import { CUSTOMER_LIMITS, type ListCustomersQuery } from '../../../../protocol/api/customers';
import type { CustomerRecord } from '../../storage/customers/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * GET /customers/list (secret key): customers that are not deleted, newest first. limit defaults to 10; a larger
 * limit than 100 is served as 100 (docs/open-points.md); limit 0 answers an empty array.
 */
export async function listCustomers(deps: CoreDeps, auth: AuthContext, query: ListCustomersQuery): Promise<CustomerRecord[]> {
  const limit = Math.min(query.limit ?? CUSTOMER_LIMITS.defaultListLimit, CUSTOMER_LIMITS.maxListLimit);
  return deps.store.customers.listCustomers(auth, { offset: query.offset ?? 0, limit });
}
