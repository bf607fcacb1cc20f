import type { JsonObject } from '../../../../protocol/api/payments';
import { SUBSCRIPTION_LIMITS, type SubscriptionItemsQuery } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { profileWithBillingProcessor } from './billing-processor';
import { SIMULATED_CATALOGUE } from './simulated-catalogue';

/** GET /subscriptions/items: the catalogue's plans or addons with their prices. */
export async function listSubscriptionItems(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: SubscriptionItemsQuery): Promise<JsonObject[]> {
  await profileWithBillingProcessor(deps, auth, profileId);
  const items = SIMULATED_CATALOGUE.filter((item) => item.itemType === query.item_type && (query.product_id === undefined || item.itemId === query.product_id));
  const offset = query.offset ?? 0;
  return items.slice(offset, offset + (query.limit ?? SUBSCRIPTION_LIMITS.defaultListLimit)).map((item) => ({
    item_id: item.itemId,
    name: item.name,
    type: item.itemType,
    description: item.description,
    price_id: item.prices.map((price) => ({ price_id: price.itemPriceId, item_id: item.itemId, amount: price.amount, currency: price.currency, interval: price.periodDays === 365 ? 'year' : 'month', interval_count: 1 })),
  }));
}
