import type { DisputeFacets } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/** GET /disputes/filter (secret key): the values present among the account's disputes, per list facet. */
export async function disputeFilters(deps: CoreDeps, auth: AuthContext): Promise<DisputeFacets> {
  return deps.store.disputes.findDisputeFacets(auth);
}
