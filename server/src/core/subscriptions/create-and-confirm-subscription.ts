import type { CreateSubscriptionRequest, SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { profileWithBillingProcessor } from './billing-processor';
import { couponOrThrow, priceOrThrow, respond } from './subscription-change';
import { firstInvoiceRequest, payFirstInvoice } from './first-invoice';
import { createSubscription } from './create-subscription';

/** POST /subscriptions: create, then pay the first invoice. */
export async function createAndConfirmSubscription(
  deps: CoreDeps,
  auth: AuthContext,
  profileId: string | undefined,
  body: CreateSubscriptionRequest,
): Promise<SubscriptionResponse> {
  // payment_details is checked before anything is stored: a bad one leaves no subscription behind.
  await profileWithBillingProcessor(deps, auth, profileId);
  const price = priceOrThrow(body.item_price_id, body.plan_id);
  firstInvoiceRequest(
    { subscriptionId: 'sub_draft', itemPriceId: price.itemPriceId, couponCode: couponOrThrow(body.coupon_code, 'coupon_code'), currency: price.currency, customerId: body.customer_id, profileId: profileId ?? '' },
    body.payment_details,
  );
  const created = await createSubscription(deps, auth, profileId, body);
  return respond(deps, await payFirstInvoice(deps, auth, created, body.payment_details), true);
}
