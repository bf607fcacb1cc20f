import type { SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { AuthContext } from '../auth/auth-context';
import { syncWithRail } from '../payments/retrieve-payment';
import type { CoreDeps } from '../shared/deps';
import { findSubscriptionOrThrow } from './billing-processor';
import { lastPaymentOf, respond } from './subscription-change';
import { settleFirstInvoice } from './first-invoice';

export async function respondWithSubscription(deps: CoreDeps, subscription: SubscriptionRecord): Promise<SubscriptionResponse> {
  return respond(deps, subscription, true);
}

/** GET /subscriptions/{id}; a pending first invoice is looked at again (it may have resolved). */
export async function retrieveSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string): Promise<SubscriptionResponse> {
  let subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  if (subscription.status === 'pending') {
    const payment = await lastPaymentOf(deps, subscription);
    if (payment !== undefined) {
      subscription = await settleFirstInvoice(deps, subscription, await syncWithRail(deps, payment, auth), false);
    }
  }
  return respond(deps, subscription, true);
}
