import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { recordObjectEvent } from '../shared/outbox-event';
import { type SubscriptionFacts, subscriptionEventFor, type SubscriptionTrigger } from './subscription-transitions';
import { toSubscriptionResponse } from './subscription-view';

/**
 * Writes the event of a subscription change in the caller's transaction, for the subscription's version after the
 * change: a subscription may be paused or renewed many times, and the outbox keeps one event per (object, type,
 * version) (docs/open-points.md).
 */
export async function recordSubscriptionEvent(
  deps: Pick<CoreDeps, 'ids'>,
  tx: Stores,
  subscription: SubscriptionRecord,
  trigger: SubscriptionTrigger,
  now: Date,
  facts: SubscriptionFacts = {},
): Promise<void> {
  const eventType = subscriptionEventFor(trigger, subscription.status, facts);
  if (eventType === undefined) return;
  await recordObjectEvent(
    deps,
    tx,
    {
      scope: subscription,
      eventType,
      objectType: 'subscription',
      objectId: subscription.subscriptionId,
      objectVersion: subscription.version,
      contentType: 'subscription_details',
      object: toSubscriptionResponse(subscription, undefined, false),
    },
    now,
  );
}
