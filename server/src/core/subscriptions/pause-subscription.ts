import type { PauseSubscriptionRequest, SubscriptionStatusResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findSubscriptionOrThrow } from './billing-processor';
import { decideSubscriptionTransition } from './subscription-transitions';
import { toSubscriptionStatusResponse } from './subscription-view';
import { laterDate, notAllowed, schedule, transition } from './subscription-change';

/** POST /subscriptions/{id}/pause: immediately (default), or at the end of the term / a date (applied by the renewal tick). */
export async function pauseSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string, body: PauseSubscriptionRequest): Promise<SubscriptionStatusResponse> {
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  const option = body.pause_option ?? (body.pause_at !== undefined ? 'specific_date' : 'immediately');
  if (option === 'immediately') {
    return toSubscriptionStatusResponse(await transition(deps, subscription, 'pause', {}, { pausedAt: deps.clock.now(), scheduledChange: null }, 'pause'));
  }
  if (!decideSubscriptionTransition(subscription.status, 'pause').allowed) throw notAllowed(subscription, 'pause');
  const at = option === 'end_of_term' ? (subscription.nextBillingAt ?? deps.clock.now()) : laterDate(deps, body.pause_at, 'pause_at');
  return toSubscriptionStatusResponse(await transition(deps, subscription, 'update', {}, { scheduledChange: schedule('pause', at) }, 'pause'));
}
