/** How an invoice's payment (a first invoice's or a renewal's) decides it, and how a presumed dead claimant's charge is fenced. */
import type { PaymentRecord } from '../../storage/payments/records';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { AuthContext } from '../auth/auth-context';
import { IDEMPOTENCY_LEASE_MS } from '../auth/idempotency';
import { cancelPayment } from '../payments/cancel-payment';
import { insertCancelledPayment } from '../payments/insert-cancelled-payment';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** Statuses in which a payment will never be paid. */
export const UNPAID_FOR_GOOD: ReadonlySet<PaymentRecord['status']> = new Set(['failed', 'cancelled', 'expired']);
/** Statuses of a payment that never reached the rail. */
export const SHORT_OF_THE_RAIL: ReadonlySet<PaymentRecord['status']> = new Set(['requires_payment_method', 'requires_confirmation']);

/**
 * What an invoice's payment says. `answered`: as the payment's create answered it, when a payment that stopped short
 * of the rail was not paid. Otherwise as read while its create may still run (a retrieve): then only a payment that
 * can never be paid is a refusal. Anything else the rail may still pay (processing, waiting for the customer, left to
 * the merchant after no answer): waiting.
 */
export function paymentOutcome(payment: PaymentRecord, answered: boolean): 'paid' | 'waiting' | 'failed' {
  if (payment.status === 'succeeded') return 'paid';
  if (UNPAID_FOR_GOOD.has(payment.status)) return 'failed';
  return answered && SHORT_OF_THE_RAIL.has(payment.status) ? 'failed' : 'waiting';
}

/** The cancellation_reason of an invoice's payment cancelled because its claimant was presumed dead. */
export const CHARGE_ABANDONED = 'subscription_charge_abandoned';

/** An invoice's charge: the payment id its claim named, and what the payment would be. */
export interface InvoiceCharge {
  paymentId: string;
  amount: number;
  description: string;
}

/**
 * Takes the payment id of an invoice whose claimant stored no payment, for good: a `cancelled` payment under it (with
 * its payment_cancelled event), written in the transaction that settles the invoice without it (a cancel of a pending
 * subscription, a renewal made unpaid). Why: a claimant is presumed dead once its claim's lease ran out, but it may
 * only be stalled, and it would then create and charge that payment after the settle answered (a cancelled
 * subscription charged, or an unpaid period billed twice). createPayment refuses a payment_id that is taken with
 * another body (ERR_4002), before anything reaches the rail, so the stalled run charges nothing. A claimant that stored
 * its payment first makes this insert a duplicate: `refused` undoes the settle, and that payment decides.
 */
export async function takePaymentId(deps: CoreDeps, tx: Stores, subscription: SubscriptionRecord, charge: InvoiceCharge, now: Date, refused: () => ApiError): Promise<void> {
  const taken = await insertCancelledPayment(
    deps,
    tx,
    {
      scope: subscription,
      paymentId: charge.paymentId,
      profileId: subscription.profileId,
      amount: charge.amount,
      currency: subscription.currency,
      customerId: subscription.customerId,
      description: charge.description,
      metadata: { subscription_id: subscription.subscriptionId },
      cancellationReason: CHARGE_ABANDONED,
    },
    now,
  );
  if (taken === 'duplicate') throw refused();
}

/**
 * An invoice's payment whose claimant is presumed dead (its claim's lease ran out), as it stands once nobody can charge
 * it any more: one stored short of the rail is cancelled first. Why: the claimant may only be stalled and would still
 * confirm it; counting it refused without cancelling it let it be charged after the subscription was cancelled, or
 * the invoice be charged again under another payment. The cancel is conditional (cancelPayment), so of it and that
 * confirm one wins: the payment is cancelled (refused), or it is on the rail and decides.
 */
export async function withoutAbandonedCharge(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): Promise<PaymentRecord> {
  if (!SHORT_OF_THE_RAIL.has(payment.status)) return payment;
  try {
    return await cancelPayment(deps, auth, payment.paymentId, { cancellation_reason: CHARGE_ABANDONED });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return (await deps.store.payments.findPayment(auth, payment.paymentId)) ?? payment;
  }
}

/**
 * How long a confirm's claim of a subscription (pending) is its own, as an Idempotency-Key's claim is: past it, the
 * confirm is presumed dead (a process crash), and a later confirm may take the subscription over.
 */
export const CONFIRM_CLAIM_LEASE_MS = IDEMPOTENCY_LEASE_MS;

/** A pending subscription's claim; the claim is the last write of a pending subscription, so its updated_at dates it. */
export function claimOf(deps: CoreDeps, subscription: SubscriptionRecord): 'live' | 'abandoned' {
  return subscription.updatedAt.getTime() + CONFIRM_CLAIM_LEASE_MS <= deps.clock.now().getTime() ? 'abandoned' : 'live';
}
