import type { SubscriptionEstimateQuery, SubscriptionEstimateResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { profileWithBillingProcessor } from './billing-processor';
import { findPlan, firstInvoiceAmount } from './simulated-catalogue';
import { couponOrThrow } from './subscription-change';

/** GET /subscriptions/estimate: the first invoice of a plan's first price, less a coupon; a trial makes it 0. */
export async function estimateSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: SubscriptionEstimateQuery): Promise<SubscriptionEstimateResponse> {
  await profileWithBillingProcessor(deps, auth, profileId);
  const plan = findPlan(query.plan_id);
  if (plan === undefined) throw new ApiError('ERR_2003', 'plan_id names no plan of the billing processor.', { fieldName: 'plan_id' });
  if (query.customer_id !== undefined) await findLiveCustomer(deps.store, auth, query.customer_id);
  const price = plan.prices[0]!;
  const couponCode = couponOrThrow(query.coupon_id, 'coupon_id');
  const { amount, discount } = firstInvoiceAmount(price, couponCode);
  const trial = (query.trial_days ?? 0) > 0;
  return {
    amount: trial ? 0 : amount,
    currency: price.currency,
    plan_id: plan.itemId,
    item_price_id: price.itemPriceId,
    coupon_code: couponCode,
    customer_id: query.customer_id ?? null,
    line_items: [
      { item_price_id: price.itemPriceId, description: plan.name, quantity: 1, unit_amount: price.amount, discount_amount: trial ? price.amount : discount, amount: trial ? 0 : amount },
    ],
  };
}
