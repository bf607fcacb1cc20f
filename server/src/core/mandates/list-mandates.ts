import { MANDATE_LIMITS, type ListMandatesQuery } from '../../../../protocol/api/mandates';
import type { MandateRecord } from '../../storage/mandates/records';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';

/** GET /mandates/list (secret key): newest first, filtered by mandate_status; limit defaults to 10 (at most 100). */
export async function listMandates(deps: CoreDeps, auth: AuthContext, query: ListMandatesQuery): Promise<MandateRecord[]> {
  return deps.store.mandates.listMandates(auth, {
    limit: query.limit ?? MANDATE_LIMITS.defaultListLimit,
    offset: query.offset ?? 0,
    status: query.mandate_status,
  });
}

/** GET /customers/{customer_id}/mandates (secret key): every mandate of an existing customer (ERR_4006 otherwise). */
export async function listMandatesOfCustomer(deps: CoreDeps, auth: AuthContext, customerId: string): Promise<MandateRecord[]> {
  await findLiveCustomer(deps.store, auth, customerId);
  return deps.store.mandates.listMandates(auth, { limit: MANDATE_LIMITS.maxListLimit, offset: 0, customerId });
}
