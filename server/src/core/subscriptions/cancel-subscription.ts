import type { CancelSubscriptionRequest, SubscriptionStatusResponse } from '../../../../protocol/api/subscriptions';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { AuthContext } from '../auth/auth-context';
import { syncWithRail } from '../payments/retrieve-payment';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findSubscriptionOrThrow } from './billing-processor';
import { toSubscriptionStatusResponse } from './subscription-view';
import { isChangedMeanwhile, lastPaymentOf, laterDate, schedule, transition } from './subscription-change';
import { claimOf, takePaymentId, withoutAbandonedCharge } from './invoice-payment';
import { beingCharged, firstInvoiceCharge, settleFirstInvoice } from './first-invoice';
import { settleOutstandingRenewal } from './renew-subscriptions';

/**
 * A pending subscription, as its first invoice leaves it before a cancel: a payment that settled meanwhile (paid, or
 * refused) moves it first, and the cancel applies to the subscription it left. While the invoice is still being
 * charged, or waits for the customer, the cancel is refused (ERR_4111): the customer may yet pay, and a cancelled
 * subscription must not have a paid first invoice. Past the claim's lease no confirm runs any more: with no payment
 * stored nothing was charged, and the cancel takes the invoice's payment id (takePaymentId); a payment stored short of
 * the rail is cancelled first (withoutAbandonedCharge), unless its confirm won the race and it is on the rail.
 */
async function settleBeforeCancel(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord): Promise<SubscriptionRecord> {
  const claim = claimOf(deps, subscription);
  const payment = await lastPaymentOf(deps, subscription);
  if (payment === undefined) {
    if (claim === 'abandoned') return subscription;
    throw beingCharged(subscription, 'cancel');
  }
  const synced = await syncWithRail(deps, payment, auth);
  const decided = claim === 'abandoned' ? await withoutAbandonedCharge(deps, auth, synced) : synced;
  const settled = await settleFirstInvoice(deps, subscription, decided, false);
  if (settled.status === 'pending') throw beingCharged(settled, 'cancel', decided);
  return settled;
}

/** POST /subscriptions/{id}/cancel: immediately (default), or at the end of the term / a date (applied by the renewal tick). */
export async function cancelSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string, body: CancelSubscriptionRequest): Promise<SubscriptionStatusResponse> {
  const found = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  const option = body.cancel_option ?? (body.cancel_at !== undefined ? 'specific_date' : 'immediately');
  const subscription =
    found.status === 'pending' ? await settleBeforeCancel(deps, auth, found) : option === 'immediately' ? await settleRenewalBeforeCancel(deps, auth, found) : found;
  if (option === 'immediately' || subscription.status !== 'active') {
    // Only on the version read: a confirm that took a pending one's claim over meanwhile wins, and a renewal tick that
    // claimed an active one's period meanwhile is waited for (settleRenewalBeforeCancel, on the next request).
    // Still pending: its claim was abandoned with no payment stored (settleBeforeCancel), and the cancel takes the
    // invoice's payment id from its claimant, which may be stalled rather than dead.
    const pending = subscription.status === 'pending';
    const patch = { cancelledAt: deps.clock.now(), nextBillingAt: null, scheduledChange: null };
    const fence = pending && subscription.lastPaymentId !== null ? firstInvoiceCharge(subscription, subscription.lastPaymentId) : undefined;
    const alongside = fence && ((tx: Stores, now: Date) => takePaymentId(deps, tx, subscription, fence, now, () => beingCharged(subscription, 'cancel')));
    return toSubscriptionStatusResponse(await transition(deps, subscription, 'cancel', { claim: pending ? 'abandoned' : undefined }, patch, 'cancel', true, alongside));
  }
  const at = option === 'end_of_term' ? (subscription.nextBillingAt ?? deps.clock.now()) : laterDate(deps, body.cancel_at, 'cancel_at');
  return toSubscriptionStatusResponse(await transition(deps, subscription, 'update', {}, { scheduledChange: schedule('cancel', at) }, 'cancel'));
}

/**
 * An immediate cancel of an active subscription follows a renewal being charged, as a pending one's follows its first
 * invoice: settled (or settling now from its payment), the cancel applies to what it left; still being charged or
 * waiting on the rail, ERR_4111. A renewal tick charged the period of a subscription cancelled meanwhile.
 */
async function settleRenewalBeforeCancel(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord): Promise<SubscriptionRecord> {
  if (subscription.status !== 'active' || subscription.renewalPaymentId === null) return subscription;
  await settleOutstandingRenewal(deps, auth, subscription).catch((error: unknown) => {
    if (!isChangedMeanwhile(error)) throw error;
  });
  const now = (await deps.store.subscriptions.findSubscription(subscription, subscription.profileId, subscription.subscriptionId)) ?? subscription;
  if (now.status === 'active' && now.renewalPaymentId !== null) {
    throw new ApiError(
      'ERR_4111',
      `You cannot cancel this subscription at once while its renewal payment ${now.renewalPaymentId} is being charged; retrieve it once the payment settled and try again, or cancel at the end of the term.`,
      { tryLater: true },
    );
  }
  return now;
}
