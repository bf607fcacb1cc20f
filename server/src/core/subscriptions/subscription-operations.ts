/**
 * The subscription operations (spec's Subscriptions table). Without a billing processor (the default account, spec
 * "not live today" 4) creations, estimates and the item catalogue answer ERR_2001 naming billing_processor_id and no
 * subscription exists. With the simulated billing processor (test mode) the lifecycle runs on the simulated
 * catalogue: the first invoice is a customer-present payment that sets up a mandate, renewals charge that mandate
 * off-session on the injected clock, and every change writes its webhook event in its transaction.
 */
import { CLIENT_SECRET_RANDOM_LENGTH, clientSecretOf } from '../../../../protocol/ids';
import { CreatePaymentRequest, DEFAULT_SESSION_EXPIRY_SECONDS, type JsonObject } from '../../../../protocol/api/payments';
import type {
  CancelSubscriptionRequest,
  ConfirmSubscriptionRequest,
  CreateSubscriptionRequest,
  ListSubscriptionsQuery,
  PauseSubscriptionRequest,
  ResumeSubscriptionRequest,
  SubscriptionEstimateQuery,
  SubscriptionEstimateResponse,
  SubscriptionItemsQuery,
  SubscriptionResponse,
  SubscriptionStatusResponse,
  UpdateSubscriptionRequest,
} from '../../../../protocol/api/subscriptions';
import { SUBSCRIPTION_LIMITS } from '../../../../protocol/api/subscriptions';
import type { PaymentRecord } from '../../storage/payments/records';
import type { ScheduledChange, SubscriptionPatch, SubscriptionRecord } from '../../storage/subscriptions/records';
import type { Stores } from '../../storage/stores';
import type { AuthContext } from '../auth/auth-context';
import { clientSecretMismatch, clientSecretMismatchOfUnknown, missingClientSecret } from '../auth/auth';
import { IDEMPOTENCY_LEASE_MS } from '../auth/idempotency';
import { secretsEqual } from '../auth/secrets';
import { findLiveCustomer } from '../customers/find-live-customer';
import { requireSecretKeyToChargeMandate } from '../mandates/stored-charge';
import { cancelPayment } from '../payments/cancel-payment';
import { createPayment } from '../payments/create-payment';
import { insertCancelledPayment } from '../payments/insert-cancelled-payment';
import { executeConfirm } from '../payments/confirm-payment';
import { syncWithRail } from '../payments/retrieve-payment';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { containsRawCardNumber, redactCardNumbers } from '../vault/card-number-guard';
import { findSubscriptionOrThrow, profileOfRequest, profileWithBillingProcessor } from './billing-processor';
import { type CatalogueItemPrice, findItemPrice, findPlan, firstInvoiceAmount, SIMULATED_CATALOGUE, SIMULATED_COUPONS } from './simulated-catalogue';
import { recordSubscriptionEvent } from './subscription-event';
import { decideSubscriptionTransition, type SubscriptionFacts, type SubscriptionTrigger } from './subscription-transitions';
import { toSubscriptionResponse, toSubscriptionStatusResponse } from './subscription-view';
import { valueAt } from '../../kernel/value-at';

const DAY_MS = 86_400_000;

/** payment_details fields a first invoice takes (Hyperswitch payment fields of a subscription payment). */
const PAYMENT_DETAIL_FIELDS = ['payment_method', 'payment_method_type', 'payment_method_data', 'customer_acceptance', 'return_url', 'mandate_id', 'billing'] as const;

function priceOrThrow(itemPriceId: string, planId: string | undefined): CatalogueItemPrice {
  const price = findItemPrice(itemPriceId);
  if (price === undefined) throw new ApiError('ERR_2003', 'item_price_id names no item price of the billing processor.', { fieldName: 'item_price_id' });
  if (planId !== undefined && price.itemId !== planId) {
    throw new ApiError('ERR_2003', 'item_price_id is not a price of plan_id.', { fieldName: 'item_price_id' });
  }
  if (findPlan(price.itemId) === undefined) throw new ApiError('ERR_2003', 'item_price_id is the price of an addon, not of a plan.', { fieldName: 'item_price_id' });
  return price;
}

function couponOrThrow(couponCode: string | undefined, fieldName: string): string | null {
  if (couponCode === undefined) return null;
  if (SIMULATED_COUPONS[couponCode] === undefined) throw new ApiError('ERR_2003', 'The coupon is unknown to the billing processor.', { fieldName });
  return couponCode;
}

function notAllowed(subscription: SubscriptionRecord, what: string): ApiError {
  return new ApiError('ERR_4111', `You cannot ${what} this subscription because it has status ${subscription.status}.`);
}

function changedMeanwhile(): ApiError {
  return new ApiError('ERR_4111', 'The subscription changed while this request ran; retrieve it and try again.', { tryLater: true });
}

function isChangedMeanwhile(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'ERR_4111';
}

/**
 * Applies a transition with a conditional update (on the status read, and on its version when `sameVersion`) and
 * writes its event in the same transaction, with `alongside`'s writes when the update applied (a throw of it undoes
 * the whole).
 */
async function transition(
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

/** Statuses in which a payment will never be paid. */
const UNPAID_FOR_GOOD: ReadonlySet<PaymentRecord['status']> = new Set(['failed', 'cancelled', 'expired']);
/** Statuses of a payment that never reached the rail. */
const SHORT_OF_THE_RAIL: ReadonlySet<PaymentRecord['status']> = new Set(['requires_payment_method', 'requires_confirmation']);

/**
 * What an invoice's payment says. `answered`: as the payment's create answered it, when a payment that stopped short
 * of the rail was not paid. Otherwise as read while its create may still run (a retrieve): then only a payment that
 * can never be paid is a refusal. Anything else the rail may still pay (processing, waiting for the customer, left to
 * the merchant after no answer): waiting.
 */
function paymentOutcome(payment: PaymentRecord, answered: boolean): 'paid' | 'waiting' | 'failed' {
  if (payment.status === 'succeeded') return 'paid';
  if (UNPAID_FOR_GOOD.has(payment.status)) return 'failed';
  return answered && SHORT_OF_THE_RAIL.has(payment.status) ? 'failed' : 'waiting';
}

async function lastPaymentOf(deps: CoreDeps, subscription: SubscriptionRecord): Promise<PaymentRecord | undefined> {
  return subscription.lastPaymentId === null ? undefined : deps.store.payments.findPayment(subscription, subscription.lastPaymentId);
}

/** The cancellation_reason of an invoice's payment cancelled because its claimant was presumed dead. */
const CHARGE_ABANDONED = 'subscription_charge_abandoned';

/** An invoice's charge: the payment id its claim named, and what the payment would be. */
interface InvoiceCharge {
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
async function takePaymentId(deps: CoreDeps, tx: Stores, subscription: SubscriptionRecord, charge: InvoiceCharge, now: Date, refused: () => ApiError): Promise<void> {
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
async function withoutAbandonedCharge(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): Promise<PaymentRecord> {
  if (!SHORT_OF_THE_RAIL.has(payment.status)) return payment;
  try {
    return await cancelPayment(deps, auth, payment.paymentId, { cancellation_reason: CHARGE_ABANDONED });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return (await deps.store.payments.findPayment(auth, payment.paymentId)) ?? payment;
  }
}

async function respond(deps: CoreDeps, subscription: SubscriptionRecord, showClientSecret: boolean): Promise<SubscriptionResponse> {
  return toSubscriptionResponse(subscription, await lastPaymentOf(deps, subscription), showClientSecret);
}

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

/** The first invoice's charge under `paymentId` (its amount and description, as firstInvoiceRequest makes them). */
function firstInvoiceCharge(subscription: SubscriptionRecord, paymentId: string): InvoiceCharge {
  const { amount } = firstInvoiceAmount(findItemPrice(subscription.itemPriceId)!, subscription.couponCode);
  return { paymentId, amount, description: `Subscription ${subscription.subscriptionId}` };
}

/** The create-payment body of a first invoice from payment_details (ERR_2003 naming payment_details.<field>). */
function firstInvoiceRequest(
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

/**
 * How long a confirm's claim of a subscription (pending) is its own, as an Idempotency-Key's claim is: past it, the
 * confirm is presumed dead (a process crash), and a later confirm may take the subscription over.
 */
const CONFIRM_CLAIM_LEASE_MS = IDEMPOTENCY_LEASE_MS;

/** A pending subscription's claim; the claim is the last write of a pending subscription, so its updated_at dates it. */
function claimOf(deps: CoreDeps, subscription: SubscriptionRecord): 'live' | 'abandoned' {
  return subscription.updatedAt.getTime() + CONFIRM_CLAIM_LEASE_MS <= deps.clock.now().getTime() ? 'abandoned' : 'live';
}

function beingCharged(subscription: SubscriptionRecord, what: string, payment?: PaymentRecord): ApiError {
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
async function carryOnStoredPayment(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): Promise<PaymentRecord> {
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
async function payFirstInvoice(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord, details: JsonObject): Promise<SubscriptionRecord> {
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
async function settleFirstInvoice(deps: CoreDeps, subscription: SubscriptionRecord, payment: PaymentRecord, answered: boolean): Promise<SubscriptionRecord> {
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

/**
 * When a subscription's client_secret stops reaching it: as a payment's with the default session_expiry (15 minutes),
 * counted from the subscription's creation. Only the browser's credential expires; the secret key confirms at any time.
 */
function clientSecretExpiresAt(subscription: SubscriptionRecord): Date {
  return new Date(subscription.createdAt.getTime() + DEFAULT_SESSION_EXPIRY_SECONDS * 1000);
}

/** POST /subscriptions/{id}/confirm (secret key, or publishable key with the subscription's client_secret). */
export async function confirmSubscription(
  deps: CoreDeps,
  auth: AuthContext,
  profileId: string | undefined,
  subscriptionId: string,
  body: ConfirmSubscriptionRequest,
): Promise<SubscriptionResponse> {
  if (auth.keyKind === 'publishable' && body.client_secret === undefined) throw missingClientSecret();
  if (auth.keyKind === 'secret' && body.client_secret !== undefined) {
    throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', { fieldName: 'client_secret' });
  }
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId).catch((error: unknown) => {
    // A publishable key is public: an unknown subscription answers as another subscription's client_secret does,
    // after the same comparison.
    throw auth.keyKind === 'publishable' && body.client_secret !== undefined && error instanceof ApiError && error.code === 'ERR_4110'
      ? clientSecretMismatchOfUnknown(subscriptionId, body.client_secret, 'subscription')
      : error;
  });
  if (body.client_secret !== undefined) {
    if (!secretsEqual(body.client_secret, subscription.clientSecret)) throw clientSecretMismatch('subscription');
    // Told only to the holder of the right secret, as for a payment (auth.ts verifyClientSecret).
    if (clientSecretExpiresAt(subscription) <= deps.clock.now()) {
      throw new ApiError('ERR_1006', 'client_secret has expired; confirm the subscription from your server with the secret key, or create a new one.', { fieldName: 'client_secret' });
    }
  }
  // Refused before the claim, as POST /payments refuses it.
  if (body.payment_details['mandate_id'] !== undefined) requireSecretKeyToChargeMandate(auth, 'payment_details.mandate_id');
  return respond(deps, await payFirstInvoice(deps, auth, subscription, body.payment_details), true);
}

/** POST /subscriptions: create, then pay the first invoice. */
export async function createAndConfirmSubscription(
  deps: CoreDeps,
  auth: AuthContext,
  profileId: string | undefined,
  body: CreateSubscriptionRequest,
): Promise<SubscriptionResponse> {
  // payment_details is checked before anything is stored: a bad one leaves no subscription behind.
  await profileWithBillingProcessor(deps, auth, profileId);
  const price = priceOrThrow(body.item_price_id, body.plan_id);
  firstInvoiceRequest(
    { subscriptionId: 'sub_draft', itemPriceId: price.itemPriceId, couponCode: couponOrThrow(body.coupon_code, 'coupon_code'), currency: price.currency, customerId: body.customer_id, profileId: profileId ?? '' },
    body.payment_details,
  );
  const created = await createSubscription(deps, auth, profileId, body);
  return respond(deps, await payFirstInvoice(deps, auth, created, body.payment_details), true);
}

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

/** GET /subscriptions/list: newest first; limit default 10, at most 100. */
export async function listSubscriptions(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: ListSubscriptionsQuery): Promise<SubscriptionResponse[]> {
  const profile = await profileOfRequest(deps, auth, profileId);
  const rows = await deps.store.subscriptions.listSubscriptions(auth, profile.profileId, query.limit ?? SUBSCRIPTION_LIMITS.defaultListLimit, query.offset ?? 0);
  return Promise.all(rows.map((row) => respond(deps, row, true)));
}

/** GET /subscriptions/estimate: the first invoice of a plan's first price, less a coupon; a trial makes it 0. */
export async function estimateSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: SubscriptionEstimateQuery): Promise<SubscriptionEstimateResponse> {
  await profileWithBillingProcessor(deps, auth, profileId);
  const plan = findPlan(query.plan_id);
  if (plan === undefined) throw new ApiError('ERR_2003', 'plan_id names no plan of the billing processor.', { fieldName: 'plan_id' });
  if (query.customer_id !== undefined) await findLiveCustomer(deps.store, auth, query.customer_id);
  const price = plan.prices[0]!;
  const couponCode = couponOrThrow(query.coupon_id, 'coupon_id');
  const { amount, discount } = firstInvoiceAmount(price, couponCode);
  const trial = (query.trial_days ?? 0) > 0;
  return {
    amount: trial ? 0 : amount,
    currency: price.currency,
    plan_id: plan.itemId,
    item_price_id: price.itemPriceId,
    coupon_code: couponCode,
    customer_id: query.customer_id ?? null,
    line_items: [
      { item_price_id: price.itemPriceId, description: plan.name, quantity: 1, unit_amount: price.amount, discount_amount: trial ? price.amount : discount, amount: trial ? 0 : amount },
    ],
  };
}

/** GET /subscriptions/items: the catalogue's plans or addons with their prices. */
export async function listSubscriptionItems(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, query: SubscriptionItemsQuery): Promise<JsonObject[]> {
  await profileWithBillingProcessor(deps, auth, profileId);
  const items = SIMULATED_CATALOGUE.filter((item) => item.itemType === query.item_type && (query.product_id === undefined || item.itemId === query.product_id));
  const offset = query.offset ?? 0;
  return items.slice(offset, offset + (query.limit ?? SUBSCRIPTION_LIMITS.defaultListLimit)).map((item) => ({
    item_id: item.itemId,
    name: item.name,
    type: item.itemType,
    description: item.description,
    price_id: item.prices.map((price) => ({ price_id: price.itemPriceId, item_id: item.itemId, amount: price.amount, currency: price.currency, interval: price.periodDays === 365 ? 'year' : 'month', interval_count: 1 })),
  }));
}

/** A later date given as text (pause_at, cancel_at): ERR_2001 when missing, ERR_2003 when not a future date-time. */
function laterDate(deps: CoreDeps, value: string | undefined, fieldName: string): Date {
  if (value === undefined) throw new ApiError('ERR_2001', `${fieldName} is required with specific_date.`, { fieldName });
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at <= deps.clock.now()) throw new ApiError('ERR_2003', `${fieldName} must be a future RFC 3339 date-time.`, { fieldName });
  return at;
}

function schedule(kind: ScheduledChange['kind'], at: Date): ScheduledChange {
  return { kind, at: at.toISOString() };
}

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

/** PUT /subscriptions/{id}/update: a new plan and price (same currency) billed from the next renewal. */
export async function updateSubscription(deps: CoreDeps, auth: AuthContext, profileId: string | undefined, subscriptionId: string, body: UpdateSubscriptionRequest): Promise<SubscriptionResponse> {
  const subscription = await findSubscriptionOrThrow(deps, auth, profileId, subscriptionId);
  const price = priceOrThrow(body.item_price_id, body.plan_id);
  if (price.currency !== subscription.currency) {
    throw new ApiError('ERR_2003', `item_price_id is priced in ${price.currency}; the subscription bills in ${subscription.currency}.`, { fieldName: 'item_price_id' });
  }
  const updated = await transition(deps, subscription, 'update', {}, { planId: price.itemId, itemPriceId: price.itemPriceId, amount: price.amount }, 'update');
  return respond(deps, updated, true);
}

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
 * Where this process's next tick of a listing (outstanding or due) of an account and mode resumes, when the last one
 * stopped at its bound before the end of it (a hint only: a tick may start anywhere, and every instance keeps its own).
 */
const tickResumesAfter = new Map<string, SubscriptionRecord>();

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
 * of this process resumes after the last of them, and starts from the first again once a tick reached the end, so
 * every row is looked at within a few ticks however many wait.
 */
async function sweepInBatches(
  resumeKey: string,
  limits: RenewalTickLimits,
  list: (limit: number, after: SubscriptionRecord | undefined) => Promise<SubscriptionRecord[]>,
  handle: (subscription: SubscriptionRecord) => Promise<void>,
): Promise<void> {
  let after = tickResumesAfter.get(resumeKey);
  tickResumesAfter.delete(resumeKey);
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
  if (after !== undefined) tickResumesAfter.set(resumeKey, after);
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
async function settleOutstandingRenewal(deps: CoreDeps, auth: AuthContext, subscription: SubscriptionRecord): Promise<keyof RenewalRun | undefined> {
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
