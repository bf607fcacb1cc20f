import type { PaymentRecord } from '../../storage/payments/records';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { AuthContext } from '../auth/auth-context';
import { createPayment } from '../payments/create-payment';
import { syncWithRail } from '../payments/retrieve-payment';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findItemPrice } from './simulated-catalogue';
import { changedMeanwhile, DAY_MS, isChangedMeanwhile, transition } from './subscription-change';
import { claimOf, type InvoiceCharge, paymentOutcome, takePaymentId, withoutAbandonedCharge } from './invoice-payment';

export interface RenewalRun {
  renewed: number;
  failed: number;
  paused: number;
  cancelled: number;
}

/**
 * How a tick goes through the outstanding renewals, then the due subscriptions: `batch` listed at a time, and at most
 * `perTick` of each in all, since each may ask the rail about a payment or charge one.
 */
export interface RenewalTickLimits {
  batch: number;
  perTick: number;
}

export const RENEWAL_TICK_LIMITS: RenewalTickLimits = { batch: 100, perTick: 1_000 };

/**
 * Renews every due subscription of the caller's account and mode at the injected clock's now: a scheduled pause or
 * cancel that is due is applied instead; otherwise the mandate is charged off-session for the current price. A
 * refused charge (no mandate, revoked mandate, decline) makes the subscription unpaid. Several ticks may run at once
 * (one per instance, and the simulator's route): each subscription is claimed before it is charged, by moving its
 * next_billing_at on conditionally on the version read, so a period is charged once; a subscription another tick or
 * request changed meanwhile is left to the next tick. First, the renewals an earlier tick left to the rail (no answer,
 * or a payment still waiting) are settled from their payment (settleOutstandingRenewal). Both listings are swept a
 * batch at a time within `limits` (sweepInBatches).
 */
export async function renewDueSubscriptions(deps: CoreDeps, auth: AuthContext, limits: RenewalTickLimits = RENEWAL_TICK_LIMITS): Promise<RenewalRun> {
  const run: RenewalRun = { renewed: 0, failed: 0, paused: 0, cancelled: 0 };
  const count = (outcome: keyof RenewalRun | undefined) => {
    if (outcome !== undefined) run[outcome] += 1;
  };
  await sweepInBatches(
    deps.renewalTickResumesAfter,
    `outstanding/${auth.accountId}/${auth.mode}`,
    limits,
    (limit, after) => deps.store.subscriptions.listOutstandingRenewals(auth, limit, after),
    async (subscription) => count(await settleOutstandingRenewal(deps, auth, subscription)),
  );
  const now = deps.clock.now();
  // A subscription claimed for a period that is still due at `now` (a tick after a long stop) is listed again behind
  // the cursor: one period a tick, as before.
  const renewedNow = new Set<string>();
  await sweepInBatches(
    deps.renewalTickResumesAfter,
    `due/${auth.accountId}/${auth.mode}`,
    limits,
    (limit, after) => deps.store.subscriptions.listDueSubscriptions(auth, now, limit, after),
    async (subscription) => {
      if (renewedNow.has(subscription.subscriptionId)) return;
      renewedNow.add(subscription.subscriptionId);
      count(await renewOne(deps, auth, subscription, now));
    },
  );
  return run;
}

/**
 * Lists a batch at a time, each listing after the last row of the one before (as listed: a row that moved has left
 * the listing or gone behind the cursor, one that could not move is before it), and handles each row (one another
 * tick or request changed meanwhile is left to the next tick), so rows that cannot move yet (a renewal waiting on the
 * rail, a claim still live) never hide the ones behind them. At most `limits.perTick` rows are handled; the next tick
 * of this core resumes after the last of them (kept in `resumesAfter` under `resumeKey`: a hint only, a tick may
 * start anywhere, and every core keeps its own), and starts from the first again once a tick reached the end, so
 * every row is looked at within a few ticks however many wait.
 */
async function sweepInBatches(
  resumesAfter: Map<string, SubscriptionRecord> | undefined,
  resumeKey: string,
  limits: RenewalTickLimits,
  list: (limit: number, after: SubscriptionRecord | undefined) => Promise<SubscriptionRecord[]>,
  handle: (subscription: SubscriptionRecord) => Promise<void>,
): Promise<void> {
  let after = resumesAfter?.get(resumeKey);
  resumesAfter?.delete(resumeKey);
  for (let looked = 0; looked < limits.perTick; ) {
    const batchSize = Math.min(limits.batch, limits.perTick - looked);
    const batch = await list(batchSize, after);
    for (const subscription of batch) {
      try {
        await handle(subscription);
      } catch (error) {
        if (!isChangedMeanwhile(error)) throw error;
      }
    }
    if (batch.length < batchSize) return;
    looked += batch.length;
    after = batch[batch.length - 1];
  }
  if (after !== undefined) resumesAfter?.set(resumeKey, after);
}

async function renewOne(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord, now: Date): Promise<keyof RenewalRun | undefined> {
  const change = subscription.scheduledChange;
  if (change !== null && new Date(change.at) <= now) {
    if (change.kind === 'pause') {
      await transition(deps, subscription, 'pause', {}, { pausedAt: now, scheduledChange: null }, 'pause', true);
      return 'paused';
    }
    await transition(deps, subscription, 'cancel', {}, { cancelledAt: now, nextBillingAt: null, scheduledChange: null }, 'cancel', true);
    return 'cancelled';
  }
  const dueAt = subscription.nextBillingAt;
  if (dueAt === null || dueAt > now) return undefined;
  // A renewal still outstanding (resumed meanwhile with invoice_immediately) is settled first: a new claim would
  // overwrite its renewal_payment_id, and no tick would settle it any more.
  if (subscription.renewalPaymentId !== null) return undefined;
  const price = findItemPrice(subscription.itemPriceId)!;
  const paymentId = subscription.mandateId === null ? null : deps.ids.id('payment');
  const claimed = await deps.store.subscriptions.updateSubscriptionIf(
    subscription,
    subscription.subscriptionId,
    ['active'],
    {
      nextBillingAt: new Date(dueAt.getTime() + price.periodDays * DAY_MS),
      // The period billed is fixed with the claim: a plan change or a resume before it settles moves next_billing_at.
      ...(paymentId === null ? {} : { lastPaymentId: paymentId, renewalPaymentId: paymentId, renewalPeriodStart: dueAt }),
      // The claim's lease runs from now, not from the tick's start: a tick of 100 renewals may have run past it.
      updatedAt: deps.clock.now(),
    },
    subscription.version,
  );
  if (claimed === undefined) throw changedMeanwhile();
  let payment: PaymentRecord | undefined;
  if (subscription.mandateId !== null && paymentId !== null) {
    try {
      payment = (
        await createPayment(deps, auth, {
          payment_id: paymentId,
          amount: subscription.amount,
          currency: subscription.currency,
          confirm: true,
          customer_id: subscription.customerId,
          profile_id: subscription.profileId,
          off_session: true,
          mandate_id: subscription.mandateId,
          description: renewalDescription(subscription),
          metadata: { subscription_id: subscription.subscriptionId },
        })
      ).payment;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The charge may have been stored, even sent to the rail, before it failed: the period follows that payment.
      payment = await deps.store.payments.findPayment(auth, paymentId);
    }
  }
  const outcome = payment === undefined ? 'failed' : paymentOutcome(payment, true);
  // A payment the rail may still pay keeps the period's claim (next_billing_at moved on, renewal_payment_id naming it),
  // so that neither a tick nor a resume charges the period again; a later tick settles it from its payment.
  if (outcome === 'waiting') return undefined;
  return applyRenewalOutcome(deps, claimed, outcome, dueAt);
}

/**
 * The renewal's outcome on the subscription, its claim cleared: invoice_paid; refused, the period unpaid (active:
 * unpaid, with the period due again; paused: the period due again, billed by the resume; cancelled: nothing is due),
 * invoice_payment_failed or subscription_unpaid. `abandoned`: the renewal's payment id, when its tick stored no payment
 * and is presumed dead; taken in the same transaction (takePaymentId).
 */
async function applyRenewalOutcome(
  deps: CoreDeps,
  subscription: SubscriptionRecord,
  outcome: 'paid' | 'failed',
  periodStart: Date,
  abandoned?: InvoiceCharge,
): Promise<keyof RenewalRun> {
  // A refused charge leaves the period unpaid: next_billing_at goes back to it, so a resume bills it.
  const patch =
    outcome === 'paid' || subscription.nextBillingAt === null
      ? { renewalPaymentId: null, renewalPeriodStart: null }
      : { nextBillingAt: periodStart, renewalPaymentId: null, renewalPeriodStart: null };
  const alongside = abandoned && ((tx: Stores, now: Date) => takePaymentId(deps, tx, subscription, abandoned, now, changedMeanwhile));
  await transition(deps, subscription, 'renewal', { payment: outcome }, patch, 'renew', true, alongside);
  return outcome === 'paid' ? 'renewed' : 'failed';
}

/** Statuses of a payment the rail may still pay (processing, waiting for the customer, left to the merchant). */
const RAIL_MAY_STILL_PAY: ReadonlySet<PaymentRecord['status']> = new Set(['processing', 'requires_customer_action', 'requires_merchant_action']);

/**
 * A renewal an earlier tick claimed and did not settle: the rail had not decided its payment (no answer, waiting), or
 * the tick died. Its payment decides now (asked of the rail again while it may still be paid): paid, invoice_paid;
 * refused, the period unpaid (applyRenewalOutcome). One still undecided stays outstanding. Also after the
 * subscription was paused or cancelled meanwhile: the money may have been taken. No payment stored once the claim's
 * lease has run out: the tick died before charging, so the period is unpaid (a resume bills it), and its payment id is
 * taken from the tick in case it was only stalled; one stored short of the rail is cancelled first, for the same
 * reason (withoutAbandonedCharge).
 */
export async function settleOutstandingRenewal(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord): Promise<keyof RenewalRun | undefined> {
  const paymentId = subscription.renewalPaymentId;
  const periodStart = claimedPeriodStart(subscription);
  if (paymentId === null || periodStart === undefined) return undefined;
  const abandoned = claimOf(deps, subscription) === 'abandoned';
  const stored = await deps.store.payments.findPayment(subscription, paymentId);
  if (stored === undefined) {
    if (!abandoned) return undefined;
    const charge = { paymentId, amount: subscription.amount, description: renewalDescription(subscription) };
    return applyRenewalOutcome(deps, subscription, 'failed', periodStart, charge);
  }
  const synced = RAIL_MAY_STILL_PAY.has(stored.status) ? await syncWithRail(deps, stored, auth) : stored;
  // Short of the rail: refused once cancelled, if the tick that made it is gone; else that tick may still confirm it.
  const payment = abandoned ? await withoutAbandonedCharge(deps, auth, synced) : synced;
  const outcome = paymentOutcome(payment, false);
  if (outcome === 'waiting') return undefined;
  return applyRenewalOutcome(deps, subscription, outcome, periodStart);
}

/**
 * The start of the period an outstanding renewal's claim bills, as the claim stored it. A claim stored before
 * migration 0031 has none: one period of the current price before next_billing_at, which the claim moved on (a cancel
 * has since cleared it: nothing is due any more).
 */
function claimedPeriodStart(subscription: SubscriptionRecord): Date | undefined {
  if (subscription.renewalPeriodStart !== null) return subscription.renewalPeriodStart;
  const price = findItemPrice(subscription.itemPriceId);
  return price && new Date((subscription.nextBillingAt?.getTime() ?? 0) - price.periodDays * DAY_MS);
}

function renewalDescription(subscription: SubscriptionRecord): string {
  return `Renewal of subscription ${subscription.subscriptionId}`;
}

/**
 * The simulated billing processor's own clock tick (main.ts runs it with the housekeeping jobs): renews the test-mode
 * subscriptions of an account whose billing processor is the simulator, as POST /simulator/subscriptions/renew does.
 */
export async function billingProcessorTick(deps: CoreDeps, account: AuthContext['account']): Promise<RenewalRun | undefined> {
  if (account.settings.billingProcessor !== 'simulator') return undefined;
  return renewDueSubscriptions(deps, { accountId: account.accountId, mode: 'test', keyId: 'billing_processor_tick', keyKind: 'secret', account });
}
