import type { SubscriptionResponse, UpdateSubscriptionRequest } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findSubscriptionOrThrow } from './billing-processor';
import { priceOrThrow, respond, transition } from './subscription-change';

/** PUT /subscriptions/{id}/update: a new plan and price (same currency) billed from the next renewal. */
export async function updateSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string, body: UpdateSubscriptionRequest): Promise<SubscriptionResponse> {
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  const price = priceOrThrow(body.item_price_id, body.plan_id);
  if (price.currency !== subscription.currency) {
    throw new ApiError('ERR_2003', `item_price_id is priced in ${price.currency}; the subscription bills in ${subscription.currency}.`, { fieldName: 'item_price_id' });
  }
  const updated = await transition(deps, subscription, 'update', {}, { planId: price.itemId, itemPriceId: price.itemPriceId, amount: price.amount }, 'update');
  return respond(deps, updated, true);
}
