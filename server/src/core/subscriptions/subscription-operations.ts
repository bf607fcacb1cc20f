/**
 * The subscription operations as they answer today (spec "not live today" 4): creations, estimates and the item
 * catalogue are refused for the missing billing_processor_id; the list is empty; an operation on a subscription id
 * answers ERR_4110, since none can exist. Each first checks the X-Profile-Id header.
 */
import type { SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { noSuchSubscription, profileOfRequest, refuseWithoutBillingProcessor } from './billing-processor';

/** POST /subscriptions, POST /subscriptions/create, GET /subscriptions/estimate, GET /subscriptions/items. */
export async function needBillingProcessor(deps: CoreDeps, auth: AuthContext, profileId: string | undefined): Promise<never> {
  refuseWithoutBillingProcessor(await profileOfRequest(deps, auth, profileId));
}

/** GET /subscriptions/list. */
export async function listSubscriptions(deps: CoreDeps, auth: AuthContext, profileId: string | undefined): Promise<SubscriptionResponse[]> {
  await profileOfRequest(deps, auth, profileId);
  return [];
}

/** GET /subscriptions/{id} and every change of one subscription. */
export async function findSubscriptionOrThrow(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, _subscriptionId: string): Promise<never> {
  await profileOfRequest(deps, auth, profileId);
  throw noSuchSubscription();
}
