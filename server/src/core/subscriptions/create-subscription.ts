import { CLIENT_SECRET_RANDOM_LENGTH, clientSecretOf } from '../../../../protocol/ids';
import type { CreateSubscriptionRequest } from '../../../../protocol/api/subscriptions';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';
import { profileWithBillingProcessor } from './billing-processor';
import { recordSubscriptionEvent } from './subscription-event';
import { decideSubscriptionTransition } from './subscription-transitions';
import { couponOrThrow, priceOrThrow } from './subscription-change';

/** POST /subscriptions/create, and the first half of POST /subscriptions. */
export async function createSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, body: CreateSubscriptionRequest): Promise<SubscriptionRecord> {
  const profile = await profileWithBillingProcessor(deps, auth, profileId);
  const price = priceOrThrow(body.item_price_id, body.plan_id);
  const couponCode = couponOrThrow(body.coupon_code, 'coupon_code');
  await findLiveCustomer(deps.store, auth, body.customer_id);
  const decision = decideSubscriptionTransition(null, 'create');
  if (!decision.allowed) throw new Error('subscription table has no creation row');
  const now = deps.clock.now();
  const subscriptionId = deps.ids.id('subscription');
  const subscription: SubscriptionRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    subscriptionId,
    profileId: profile.profileId,
    customerId: body.customer_id,
    merchantReferenceId: body.merchant_reference_id ?? null,
    status: decision.to,
    planId: price.itemId,
    itemPriceId: price.itemPriceId,
    couponCode,
    amount: price.amount,
    currency: price.currency,
    clientSecret: clientSecretOf(subscriptionId, deps.ids.secret(CLIENT_SECRET_RANDOM_LENGTH)),
    lastPaymentId: null,
    renewalPaymentId: null,
    renewalPeriodStart: null,
    mandateId: null,
    billing: body.billing ?? null,
    shipping: body.shipping ?? null,
    description: body.description ?? null,
    scheduledChange: null,
    nextBillingAt: null,
    pausedAt: null,
    cancelledAt: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const inserted = await deps.store.transaction(async (tx) => {
    if ((await tx.subscriptions.insertSubscription(subscription)) === 'duplicate') return false;
    await recordSubscriptionEvent(deps, tx, subscription, 'create', now);
    return true;
  });
  if (inserted) return subscription;
  // An Idempotency-Key re-run of a create whose effect committed derives the same id (docs/idempotency.md): the first
  // run's subscription, as it is now.
  const first = await deps.store.subscriptions.findSubscription(auth, profile.profileId, subscriptionId);
  if (first === undefined) throw new Error('subscription_id collided');
  return first;
}
