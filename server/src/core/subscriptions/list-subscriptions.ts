import { type ListSubscriptionsQuery, SUBSCRIPTION_LIMITS, type SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { profileOfRequest } from './billing-processor';
import { respond } from './subscription-change';

/** GET /subscriptions/list: newest first; limit default 10, at most 100. */
export async function listSubscriptions(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: ListSubscriptionsQuery): Promise<SubscriptionResponse[]> {
  const profile = await profileOfRequest(deps, auth, profileId);
  const rows = await deps.store.subscriptions.listSubscriptions(auth, profile.profileId, query.limit ?? SUBSCRIPTION_LIMITS.defaultListLimit, query.offset ?? 0);
  return Promise.all(rows.map((row) => respond(deps, row, true)));
}
