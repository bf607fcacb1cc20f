import type { ResumeSubscriptionRequest, SubscriptionStatusResponse } from '../../../../protocol/api/subscriptions';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findSubscriptionOrThrow } from './billing-processor';
import { toSubscriptionStatusResponse } from './subscription-view';
import { transition } from './subscription-change';

/** POST /subscriptions/{id}/resume: paused or unpaid -> active; invoice_immediately bills at the next renewal tick. */
export async function resumeSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string, body: ResumeSubscriptionRequest): Promise<SubscriptionStatusResponse> {
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  if (body.resume_option === 'specific_date' || body.resume_date !== undefined) {
    throw new ApiError('ERR_2003', 'The simulated billing processor resumes immediately only.', { fieldName: body.resume_date !== undefined ? 'resume_date' : 'resume_option' });
  }
  const now = deps.clock.now();
  const next = subscription.nextBillingAt === null || subscription.nextBillingAt < now || body.charges_handling === 'invoice_immediately' ? now : subscription.nextBillingAt;
  return toSubscriptionStatusResponse(await transition(deps, subscription, 'resume', {}, { pausedAt: null, nextBillingAt: next, scheduledChange: null }, 'resume'));
}
