/**
 * What the subscription operations share (one file per operation in this folder): the catalogue checks of a request,
 * a transition of the state table written with its event, and the answer. Without a billing processor (the default
 * account, spec "not live today" 4) creations, estimates and the item catalogue answer ERR_2001 naming
 * billing_processor_id and no subscription exists. With the simulated billing processor (test mode) the lifecycle runs
 * on the simulated catalogue: the first invoice is a customer-present payment that sets up a mandate, renewals charge
 * that mandate off-session on the injected clock, and every change writes its webhook event in its transaction.
 */
import type { SubscriptionResponse } from '../../../../protocol/api/subscriptions';
import type { PaymentRecord } from '../../storage/payments/records';
import type { ScheduledChange, SubscriptionPatch, SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { type CatalogueItemPrice, findItemPrice, findPlan, SIMULATED_COUPONS } from './simulated-catalogue';
import { recordSubscriptionEvent } from './subscription-event';
import { decideSubscriptionTransition, type SubscriptionFacts, type SubscriptionTrigger } from './subscription-transitions';
import { toSubscriptionResponse } from './subscription-view';

export const DAY_MS = 86_400_000;

export function priceOrThrow(itemPriceId: string, planId: string | undefined): CatalogueItemPrice {
  const price = findItemPrice(itemPriceId);
  if (price === undefined) throw new ApiError('ERR_2003', 'item_price_id names no item price of the billing processor.', { fieldName: 'item_price_id' });
  if (planId !== undefined && price.itemId !== planId) {
    throw new ApiError('ERR_2003', 'item_price_id is not a price of plan_id.', { fieldName: 'item_price_id' });
  }
  if (findPlan(price.itemId) === undefined) throw new ApiError('ERR_2003', 'item_price_id is the price of an addon, not of a plan.', { fieldName: 'item_price_id' });
  return price;
}

export function couponOrThrow(couponCode: string | undefined, fieldName: string): string | null {
  if (couponCode === undefined) return null;
  if (SIMULATED_COUPONS[couponCode] === undefined) throw new ApiError('ERR_2003', 'The coupon is unknown to the billing processor.', { fieldName });
  return couponCode;
}

export function notAllowed(subscription: SubscriptionRecord, what: string): ApiError {
  return new ApiError('ERR_4111', `You cannot ${what} this subscription because it has status ${subscription.status}.`);
}

export function changedMeanwhile(): ApiError {
  return new ApiError('ERR_4111', 'The subscription changed while this request ran; retrieve it and try again.', { tryLater: true });
}

export function isChangedMeanwhile(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'ERR_4111';
}

/**
 * Applies a transition with a conditional update (on the status read, and on its version when `sameVersion`) and
 * writes its event in the same transaction, with `alongside`'s writes when the update applied (a throw of it undoes
 * the whole).
 */
export async function transition(
  deps: CoreDeps,
  subscription: SubscriptionRecord,
  trigger: SubscriptionTrigger,
  facts: SubscriptionFacts,
  patch: Omit<SubscriptionPatch, 'status' | 'updatedAt'>,
  what: string,
  sameVersion = false,
  alongside?: (tx: Stores, now: Date) => Promise<void>,
): Promise<SubscriptionRecord> {
  const decision = decideSubscriptionTransition(subscription.status, trigger, facts);
  if (!decision.allowed) throw notAllowed(subscription, what);
  const now = deps.clock.now();
  const next = await deps.store.transaction(async (tx) => {
    const updated = await tx.subscriptions.updateSubscriptionIf(
      subscription,
      subscription.subscriptionId,
      [subscription.status],
      Object.assign({}, patch, { status: decision.to, updatedAt: now }),
      sameVersion ? subscription.version : undefined,
    );
    if (updated === undefined) return undefined;
    if (updated.status !== subscription.status || trigger === 'update' || trigger === 'renewal') {
      await recordSubscriptionEvent(deps, tx, updated, trigger, now, facts);
    }
    if (alongside !== undefined) await alongside(tx, now);
    return updated;
  });
  if (next === undefined) throw changedMeanwhile();
  return next;
}

export async function lastPaymentOf(deps: CoreDeps, subscription: SubscriptionRecord): Promise<PaymentRecord | undefined> {
  return subscription.lastPaymentId === null ? undefined : deps.store.payments.findPayment(subscription, subscription.lastPaymentId);
}

export async function respond(deps: CoreDeps, subscription: SubscriptionRecord, showClientSecret: boolean): Promise<SubscriptionResponse> {
  return toSubscriptionResponse(subscription, await lastPaymentOf(deps, subscription), showClientSecret);
}

/** A later date given as text (pause_at, cancel_at): ERR_2001 when missing, ERR_2003 when not a future date-time. */
export function laterDate(deps: CoreDeps, value: string | undefined, fieldName: string): Date {
  if (value === undefined) throw new ApiError('ERR_2001', `${fieldName} is required with specific_date.`, { fieldName });
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at <= deps.clock.now()) throw new ApiError('ERR_2003', `${fieldName} must be a future RFC 3339 date-time.`, { fieldName });
  return at;
}

export function schedule(kind: ScheduledChange['kind'], at: Date): ScheduledChange {
  return { kind, at: at.toISOString() };
}
