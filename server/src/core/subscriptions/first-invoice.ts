/** The first invoice of a subscription: its payment request, the confirm's claim of it, and its outcome. */
import { CreatePaymentRequest, type JsonObject } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { SubscriptionRecord } from '../../storage/subscriptions/records';
import type { AuthContext } from '../auth/auth-context';
import { createPayment } from '../payments/create-payment';
import { executeConfirm } from '../payments/confirm-payment';
import { syncWithRail } from '../payments/retrieve-payment';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { containsRawCardNumber, redactCardNumbers } from '../vault/card-number-guard';
import { findItemPrice, firstInvoiceAmount } from './simulated-catalogue';
import { valueAt } from '../../kernel/value-at';
import { DAY_MS, isChangedMeanwhile, notAllowed, transition } from './subscription-change';
import { claimOf, type InvoiceCharge, paymentOutcome, UNPAID_FOR_GOOD, withoutAbandonedCharge } from './invoice-payment';

/** payment_details fields a first invoice takes (Hyperswitch payment fields of a subscription payment). */
export const PAYMENT_DETAIL_FIELDS = ['payment_method', 'payment_method_type', 'payment_method_data', 'customer_acceptance', 'return_url', 'mandate_id', 'billing'] as const;

/** The first invoice's charge under `paymentId` (its amount and description, as firstInvoiceRequest makes them). */
export function firstInvoiceCharge(subscription: SubscriptionRecord, paymentId: string): InvoiceCharge {
  const { amount } = firstInvoiceAmount(findItemPrice(subscription.itemPriceId)!, subscription.couponCode);
  return { paymentId, amount, description: `Subscription ${subscription.subscriptionId}` };
}

/** The create-payment body of a first invoice from payment_details (ERR_2003 naming payment_details.<field>). */
export function firstInvoiceRequest(
  subscription: Pick<SubscriptionRecord, 'subscriptionId' | 'itemPriceId' | 'couponCode' | 'currency' | 'customerId' | 'profileId'>,
  details: JsonObject,
): CreatePaymentRequest {
  // Spec rule 7, as on POST /payments (http/middleware/json-body.ts rejectRawCardNumbers), before any other check:
  // payment_details is free-form at the route, so this is where its payment_method_data is first read.
  if (containsRawCardNumber(details['payment_method_data'])) {
    throw new ApiError('ERR_2029', 'Raw card numbers are not accepted. Collect cards in the hosted frame and send payment_method_data.psp_token.', {
      fieldName: 'payment_details.payment_method_data',
    });
  }
  for (const key of Object.keys(details)) {
    if (!(PAYMENT_DETAIL_FIELDS as readonly string[]).includes(key)) {
      const field = `payment_details.${redactCardNumbers(key)}`;
      throw new ApiError('ERR_2004', `${field} is not a field a subscription payment takes.`, { fieldName: field });
    }
  }
  const { amount } = firstInvoiceAmount(findItemPrice(subscription.itemPriceId)!, subscription.couponCode);
  const viaMandate = details['mandate_id'] !== undefined;
  const parsed = CreatePaymentRequest.safeParse({
    ...details,
    amount,
    currency: subscription.currency,
    confirm: true,
    customer_id: subscription.customerId,
    profile_id: subscription.profileId,
    description: `Subscription ${subscription.subscriptionId}`,
    metadata: { subscription_id: subscription.subscriptionId },
    ...(viaMandate ? { off_session: true } : { setup_future_usage: 'off_session' }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // An unknown field inside a strict object (customer_acceptance's) is ERR_2004, as everywhere else.
    const unknownKey = issue?.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = [...(issue?.path ?? []), ...(unknownKey !== undefined ? [unknownKey] : [])];
    const field = `payment_details.${redactCardNumbers(path.join('.'))}`;
    if (unknownKey !== undefined) throw new ApiError('ERR_2004', `${field} is not a field a subscription payment takes.`, { fieldName: field });
    if (valueAt(details, path) === undefined) throw new ApiError('ERR_2001', `${field} is required.`, { fieldName: field });
    throw new ApiError('ERR_2003', `${field} is not valid.`, { fieldName: field });
  }
  // After the schema, whose errors come first: the first invoice sets up the mandate renewals charge, which records
  // the subscriber's own acceptance.
  if (!viaMandate && details['customer_acceptance'] === undefined) {
    throw new ApiError('ERR_2001', 'payment_details.customer_acceptance is required: the first invoice sets up the mandate renewals are charged under.', {
      fieldName: 'payment_details.customer_acceptance',
    });
  }
  return parsed.data;
}

export function beingCharged(subscription: SubscriptionRecord, what: string, payment?: PaymentRecord): ApiError {
  const why = payment === undefined ? 'its first invoice is being charged' : `its first invoice's payment ${payment.paymentId} has status ${payment.status}`;
  return new ApiError('ERR_4111', `You cannot ${what} this subscription (status ${subscription.status}) while ${why}; retrieve it once the payment settled and try again.`, {
    tryLater: true,
  });
}

/**
 * The invoice's payment a run before this one stored (an Idempotency-Key re-run, a take-over), carried on: one stored
 * short of the rail is confirmed as it was stored (the payment's own claim lets one confirm charge it), one waiting for
 * the customer is asked about again.
 */
export async function carryOnStoredPayment(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): Promise<PaymentRecord> {
  if (payment.status !== 'requires_confirmation') return syncWithRail(deps, payment, auth);
  try {
    return await executeConfirm(deps, auth, payment, {});
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // Refused short of the rail (a wallet's token went only to the stalled run's own confirm): cancelled before it is
    // counted as refused, unless that run's confirm claimed it meanwhile, so that run cannot charge it afterwards for
    // a subscription this one released.
    return withoutAbandonedCharge(deps, auth, (await deps.store.payments.findPayment(auth, payment.paymentId)) ?? payment);
  }
}

/**
 * Pays the first invoice and moves the subscription by its outcome. The subscription is claimed first (created ->
 * pending, naming the invoice's payment id, conditional on the version read), so that of concurrent confirms, on one
 * instance or several, one charges and the others answer ERR_4111; they all read `created` and charged each before.
 * The version also keeps a plan change that landed since the read from being charged at the price read. A claim older
 * than its lease is taken over (pending -> pending, conditional on the version read) under the payment id it names,
 * so the invoice is charged at most once.
 */
export async function payFirstInvoice(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord, details: JsonObject): Promise<SubscriptionRecord> {
  const derivedPaymentId = deps.ids.id('payment');
  // An Idempotency-Key re-run of this confirm derives the first run's payment id: one whose claim landed goes on from
  // it, one that settled answers the subscription as it is. A claim released before its payment was stored (a first
  // run that answered 5xx or "try later") left the subscription `created`: the re-run confirms it as any confirm does.
  const ownClaim =
    subscription.lastPaymentId === derivedPaymentId &&
    (subscription.status === 'pending' || (await deps.store.payments.findPayment(auth, derivedPaymentId)) !== undefined);
  if (ownClaim && subscription.status !== 'pending') return subscription;
  // A re-run takes its own claim over as any take-over does (pending -> pending on the version read, which renews the
  // lease): a cancel, or another take-over, that read the same version then loses to it, or it to them (it wrote
  // nothing before, and a cancel went through while it charged). Its Idempotency-Key's lease ran out: the first run
  // is taken for dead even if the claim's own lease, written a moment after the key's, has not quite.
  const claim = ownClaim ? 'abandoned' : claimOf(deps, subscription);
  const takeOver = subscription.status === 'pending' && claim === 'abandoned';
  if (!takeOver && subscription.status !== 'created') {
    throw subscription.status === 'pending' ? beingCharged(subscription, 'confirm') : notAllowed(subscription, 'confirm');
  }
  const request = firstInvoiceRequest(subscription, details);
  // A take-over whose claimant's payment can never be paid (failed, cancelled, expired) charges the invoice anew with
  // this body's payment_details under a payment id of its own, as a confirm after a declined first invoice does: that
  // payment is final, so nothing charges the invoice twice. An Idempotency-Key re-run answers its first run's outcome.
  const claimants = takeOver && !ownClaim && subscription.lastPaymentId !== null ? await deps.store.payments.findPayment(auth, subscription.lastPaymentId) : undefined;
  const anew = claimants !== undefined && UNPAID_FOR_GOOD.has(claimants.status);
  const paymentId = takeOver && !anew && subscription.lastPaymentId !== null ? subscription.lastPaymentId : derivedPaymentId;
  const claimed = await transition(deps, subscription, 'confirm', { claim }, { lastPaymentId: paymentId }, 'confirm', true);
  // Never a second payment for the invoice: one a run before this one stored is carried on, whatever this body says.
  const stored = takeOver && !anew ? await deps.store.payments.findPayment(auth, paymentId) : undefined;
  if (stored !== undefined) return settleFirstInvoice(deps, claimed, await carryOnStoredPayment(deps, auth, stored), true);
  let payment: PaymentRecord | undefined;
  try {
    const created = await createPayment(deps, auth, { ...request, payment_id: paymentId });
    // Stored meanwhile by an earlier run that is still going (a stalled one, past its lease): carried on, never taken
    // for a payment refused short of the rail, which would release the subscription while that run charges it.
    if (created.replayed) return settleFirstInvoice(deps, claimed, await carryOnStoredPayment(deps, auth, created.payment), true);
    payment = created.payment;
  } catch (error) {
    payment = await deps.store.payments.findPayment(auth, paymentId);
    // Refused before anything was stored: nothing was charged, and the subscription can be confirmed again.
    if (payment === undefined) {
      await transition(deps, claimed, 'payment_result', { payment: 'failed' }, {}, 'confirm', true).catch((released: unknown) => {
        if (!isChangedMeanwhile(released)) throw released;
      });
    }
    if (payment === undefined || !(error instanceof ApiError)) throw error;
  }
  return settleFirstInvoice(deps, claimed, payment, true);
}

/**
 * Moves a pending subscription by its first invoice's payment (nothing while the payment waits). Settled meanwhile by
 * another request (a retrieve that synced the payment): the subscription as that request left it.
 */
export async function settleFirstInvoice(deps: CoreDeps, subscription: SubscriptionRecord, payment: PaymentRecord, answered: boolean): Promise<SubscriptionRecord> {
  const outcome = paymentOutcome(payment, answered);
  if (outcome === 'waiting') return subscription;
  const price = findItemPrice(subscription.itemPriceId)!;
  const paid = outcome === 'paid';
  try {
    return await transition(
      deps,
      subscription,
      'payment_result',
      { payment: outcome },
      paid ? { mandateId: payment.mandateId ?? null, nextBillingAt: new Date(deps.clock.now().getTime() + price.periodDays * DAY_MS) } : {},
      'confirm',
      true,
    );
  } catch (error) {
    if (!isChangedMeanwhile(error)) throw error;
    const now = await deps.store.subscriptions.findSubscription(subscription, subscription.profileId, subscription.subscriptionId);
    if (now === undefined || now.lastPaymentId !== payment.paymentId || now.status === 'pending') throw error;
    return now;
  }
}
