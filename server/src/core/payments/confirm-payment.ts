import type { ConfirmPaymentRequest, JsonObject, PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentPatch, PaymentRecord } from '../../storage/payments/records';
import type { CardSummary } from '../../../../protocol/api/vault';
import type { CardDetails } from '../../vault/card-details';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOfCaller } from './find-payment';
import { ApiError } from '../shared/errors';
import { consumePspToken } from './consume-psp-token';
import type { Stores } from '../../storage/stores';
import type { ClaimedPayment } from '../../storage/payments/store';
import { recurringAfterOutcome, refuseMandateWithoutAcceptance } from '../mandates/save-for-future-usage';
import { holdActiveMandate, resolveStoredCharge } from '../mandates/stored-charge';
import { applyRailOutcome } from './payment-outcome';
import { callRailAfterWrite, mayCallBeforeDurable } from '../shared/rail-call';
import { chooseRail, resolvePaymentMethod } from './payment-method';
import { decideTransition } from './payment-transitions';
import { HOW_THE_CUSTOMER_PAYS, refuseChargeChanges } from './charge-fields';
import { hasConsumedWalletToken, withoutWalletToken } from './wallet-data';
import { ensurePaymentCustomer } from './payment-customer';

/**
 * Confirm-body fields that confirm applies or that only matter at confirm. Every other field may be repeated at
 * confirm only with its stored value: confirm never changes what the payment charges (a publishable-key caller
 * could otherwise change the amount).
 */
const CONFIRM_FIELDS: ReadonlySet<string> = new Set([...HOW_THE_CUSTOMER_PAYS, 'off_session', 'mandate_id', 'recurring_details']);

/** What confirm changes on the stored payment. */
export interface ConfirmChanges {
  paymentMethodData?: PaymentMethodData | undefined;
  paymentMethod?: ConfirmPaymentRequest['payment_method'];
  paymentMethodType?: ConfirmPaymentRequest['payment_method_type'];
  returnUrl?: string | undefined;
  setupFutureUsage?: ConfirmPaymentRequest['setup_future_usage'];
  offSession?: boolean | undefined;
  mandateId?: string | undefined;
  recurringDetails?: JsonObject | undefined;
  paymentToken?: string | undefined;
  /** Request fields sent at confirm that replace the payment's (REPLACED_AT_CONFIRM), as update would keep them. */
  requestFields?: Partial<Pick<ConfirmPaymentRequest, ReplacedAtConfirm>>;
}

/**
 * How-the-customer-pays fields without a column of their own that a confirm keeps among the payment's request fields
 * when it sends them, as update keeps them: Hyperswitch's confirm updates the payment's addresses and takes the
 * request's customer_acceptance and browser_info over the stored ones. The customer_acceptance sent at confirm is the
 * one a mandate set up by this payment records.
 */
const REPLACED_AT_CONFIRM = [
  'billing',
  'shipping',
  'customer_acceptance',
  'browser_info',
  'payment_experience',
  'threeds_method_comp_ind',
  'all_keys_required',
] as const satisfies readonly (keyof ConfirmPaymentRequest)[];
type ReplacedAtConfirm = (typeof REPLACED_AT_CONFIRM)[number];

function replacedAtConfirm(body: ConfirmPaymentRequest): Partial<Pick<ConfirmPaymentRequest, ReplacedAtConfirm>> {
  const sent: Record<string, unknown> = {};
  for (const field of REPLACED_AT_CONFIRM) if (body[field] !== undefined) sent[field] = body[field];
  return sent as Partial<Pick<ConfirmPaymentRequest, ReplacedAtConfirm>>;
}

/**
 * An update that commits with the confirm's claim or not at all (POST /payments/{payment_id} with confirm: true): the
 * confirm is checked on the payment as the update would leave it, and a refused confirm leaves the payment as stored.
 */
export interface UpdateWithConfirm {
  /** The payment as stored, before the update. */
  stored: PaymentRecord;
  patch: PaymentPatch;
  /** The update's `customer` object, for a customer_id that names no customer yet. */
  customer: JsonObject | undefined;
}

/** POST /payments/{payment_id}/confirm with a secret or publishable key. */
export async function confirmPayment(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: ConfirmPaymentRequest,
): Promise<PaymentRecord> {
  // Spec confirm rule 2, and rule 1 as api-conventions §2 reads it: the browser always carries the client_secret.
  const payment = await findPaymentOfCaller(deps, auth, paymentId, body.client_secret);

  if (body.payment_id != null && body.payment_id !== paymentId) {
    throw new ApiError('ERR_2003', 'payment_id in the body differs from the payment in the path.', { fieldName: 'payment_id' });
  }
  refuseChargeChanges(body, payment, CONFIRM_FIELDS, (field) => `${field} cannot be changed at confirm.`);
  return executeConfirm(deps, auth, payment, {
    paymentMethodData: body.payment_method_data,
    paymentMethod: body.payment_method,
    paymentMethodType: body.payment_method_type,
    returnUrl: body.return_url,
    setupFutureUsage: body.setup_future_usage,
    offSession: body.off_session,
    mandateId: body.mandate_id,
    recurringDetails: body.recurring_details,
    paymentToken: body.payment_token,
    requestFields: replacedAtConfirm(body),
  });
}

/**
 * Confirms a stored payment: checks the transition table and the rail, claims the payment with a conditional
 * update (exactly one concurrent confirm wins; the others get ERR_4003) in one transaction with the attempt it
 * opens and the psp_token it consumes, calls the rail, applies its answer. With `update`, `payment` is the payment as
 * the update would leave it, and the update's patch (and the customer it names) is written by the claim.
 */
export async function executeConfirm(
  deps: CoreDeps,
  auth: AuthContext,
  payment: PaymentRecord,
  changes: ConfirmChanges,
  update?: UpdateWithConfirm,
): Promise<PaymentRecord> {
  // A charge with a saved instrument (core/mandates/stored-charge.ts), whether this confirm or the stored payment asks
  // for it; off-session without a usable mandate is refused (ERR_4088, spec rule 3 on the default account).
  const savedInstrument = await resolveStoredCharge(deps, auth, payment, {
    offSession: changes.offSession ?? payment.requestFields['off_session'],
    mandateId: changes.mandateId ?? payment.requestFields['mandate_id'],
    recurringDetails: changes.recurringDetails ?? payment.requestFields['recurring_details'],
    paymentToken: changes.paymentToken ?? payment.requestFields['payment_token'],
    hasPaymentMethodData: (changes.paymentMethodData ?? payment.paymentMethodData) !== null,
  });
  const data = savedInstrument?.paymentMethodData ?? changes.paymentMethodData ?? payment.paymentMethodData;
  const decision = decideTransition(payment.status, 'confirm', {
    hasPaymentMethodData: data !== null,
    captureMethod: payment.captureMethod,
  });
  if (!decision.allowed) {
    if (decision.reason === 'status') {
      throw new ApiError('ERR_4003', `You cannot confirm this payment because it has status ${payment.status}.`);
    }
    throw new ApiError('ERR_4005', 'Confirm needs payment_method_data (on the payment or in this request).', {
      fieldName: 'payment_method_data',
    });
  }
  if (data === null) throw new Error('unreachable: confirm allowed without payment_method_data');
  // The stored wallet's token went to the rail with an earlier confirm (or a create's confirm refused before the
  // rail): the placeholder kept in its place would reach the rail as a token.
  if (savedInstrument === undefined && changes.paymentMethodData === undefined && hasConsumedWalletToken(data)) {
    throw new ApiError('ERR_4005', "The wallet's token on this payment was taken by an earlier confirm: send payment_method_data with a new token.", {
      fieldName: 'payment_method_data',
    });
  }
  const method = resolvePaymentMethod(
    data,
    changes.paymentMethod ?? payment.paymentMethod,
    savedInstrument?.paymentMethodType ?? changes.paymentMethodType ?? payment.paymentMethodType,
  );
  const allowedTypes = payment.requestFields['allowed_payment_method_types'] as ConfirmPaymentRequest['allowed_payment_method_types'];
  const rail = chooseRail(auth.account.settings, deps.rails, auth.mode, payment.currency, method, payment.captureMethod, allowedTypes);
  // Without a customer nothing is set up: the request fields are not merged for nothing on every confirm.
  if (savedInstrument === undefined && payment.customerId !== null) {
    refuseMandateWithoutAcceptance(auth, { customerId: payment.customerId, requestFields: { ...payment.requestFields, ...changes.requestFields } }, {
      rail: rail.settings.rail,
      setupFutureUsage: changes.setupFutureUsage,
    });
  }

  const now = deps.clock.now();
  const patch: PaymentPatch = {
    status: decision.to,
    // A wallet's token goes to the rail below and is not kept on the payment.
    paymentMethodData: withoutWalletToken(data),
    paymentMethod: method.paymentMethod,
    paymentMethodType: rail.paymentMethodType,
    rail: rail.settings.rail,
    connector: rail.adapter.connector,
    ...(changes.returnUrl !== undefined ? { returnUrl: changes.returnUrl } : {}),
    ...(changes.setupFutureUsage !== undefined ? { setupFutureUsage: changes.setupFutureUsage } : {}),
    // Before the rail is asked: the save plan (recurringAfterOutcome) reads the claimed payment's customer_acceptance.
    ...(changes.requestFields !== undefined && Object.keys(changes.requestFields).length > 0
      ? { requestFields: { ...payment.requestFields, ...changes.requestFields } }
      : {}),
    errorCode: null,
    errorMessage: null,
    errorReason: null,
    ...(savedInstrument !== undefined ? { paymentMethodId: savedInstrument.paymentMethodId, mandateId: savedInstrument.mandateId } : {}),
    updatedAt: now,
  };
  const pspToken = data.psp_token;
  // All or nothing: the psp_token (if any) is consumed, the payment claimed and the attempt it opens inserted. A
  // confirm that loses the claim rolls back and leaves the token unused; of two confirms with one token only one can
  // use it. The payment keeps a display summary of the card instead of the token (and a wallet's data without its
  // token). Without a token the claim is one storage operation, atomic by itself (one statement on PostgreSQL).
  // Either resolves once committed, before it is durable (`durable`); on PostgreSQL the one statement is durable when it
  // resolves, unless the rail may hear of it before (flushLater).
  const flushLater = mayCallBeforeDurable(rail.adapter);
  const mandateId = savedInstrument?.mandateId ?? null;
  // The claim is conditional on the stored payment's status, and writes the update with the confirm's own changes.
  const stored = update?.stored ?? payment;
  const claimPatch: PaymentPatch = update === undefined ? patch : { ...update.patch, ...patch };
  const newCustomerId = update?.patch.customerId ?? null;
  const claim =
    pspToken === undefined && mandateId === null && newCustomerId === null
      ? await claimAndOpenAttempt(deps.store, auth, stored, claimPatch, now, savedInstrument?.card, flushLater)
      : await deps.store
          .transactionDurableLater(async (tx) => {
            // A charge under a mandate claims only while the mandate is still active (stored-charge.ts holdActiveMandate).
            if (mandateId !== null) await holdActiveMandate(tx, auth, mandateId, now);
            if (newCustomerId !== null) await ensurePaymentCustomer(tx, auth, newCustomerId, update?.customer, now);
            const consumed = pspToken === undefined ? undefined : await consumePspToken(deps, tx, auth, payment.paymentId, pspToken, now);
            const claimed = consumed === undefined
              ? await claimAndOpenAttempt(tx, auth, stored, claimPatch, now, savedInstrument?.card)
              : await claimAndOpenAttempt(tx, auth, stored, { ...claimPatch, paymentMethodData: cardInPlaceOfToken(data, consumed.summary) }, now, consumed.card);
            if (claimed === undefined) throw new ClaimLost();
            return claimed;
          })
          .then(({ result, durable }) => ({ ...result, durable: () => durable }))
          .catch((error: unknown) => {
            if (error instanceof ClaimLost) return undefined;
            throw error;
          });
  if (claim === undefined) {
    const current = await deps.store.payments.findPayment(auth, payment.paymentId);
    throw new ApiError('ERR_4003', `You cannot confirm this payment because it has status ${current?.status ?? payment.status}.`);
  }
  const { next: claimed, card, attemptId, durable: claimDurable } = claim;

  const call = await callRailAfterWrite(deps, rail.adapter, claimDurable, () => rail.adapter.authorize({
    accountId: auth.accountId,
    mode: auth.mode,
    paymentId: claimed.paymentId,
    attemptId,
    amount: claimed.amount,
    currency: claimed.currency,
    paymentMethod: method.paymentMethod,
    paymentMethodType: rail.paymentMethodType,
    paymentMethodData: data,
    returnUrl: claimed.returnUrl,
    ...(card !== undefined ? { card } : {}),
    threeDs: {
      external: claimed.requestFields['request_external_three_ds_authentication'] === true,
      forceChallenge: claimed.requestFields['force_3ds_challenge'] === true,
    },
    now,
  }));
  const afterOutcome = recurringAfterOutcome(deps, auth, claimed, {
    stored: savedInstrument !== undefined,
    rail: rail.settings.rail,
    card,
    setupFutureUsage: changes.setupFutureUsage,
  });
  if (call.kind === 'no_answer') {
    // No answer: the payment stays processing, which is the truth, and recovery asks the rail under attemptId. A
    // method to save waits for that answer as it waits for a customer's (settlePendingSave applies it).
    if (afterOutcome !== undefined) await deps.store.transaction((tx) => afterOutcome(tx, claimed, 'customer_action', now));
    // The answer is the claim itself: acknowledged only once it is durable.
    await claimDurable();
    return claimed;
  }
  const settled = await applyRailOutcome(deps, claimed, call.answer, 'rail_result', afterOutcome ?? null);
  // Covered by the outcome's own sync when it wrote; this also refuses to answer for a claim whose COMMIT failed.
  await claimDurable(settled);
  return settled;
}

/** What a card payment keeps once its psp_token is consumed: the card's summary, and the billing sent beside the token. */
function cardInPlaceOfToken(data: PaymentMethodData, summary: CardSummary): PaymentMethodData {
  return { card: summary, ...(data.billing !== undefined ? { billing: data.billing } : {}) };
}

/** Claims the payment if it is still in the status it was read in, and opens its attempt. */
async function claimAndOpenAttempt(
  stores: Stores,
  auth: AuthContext,
  payment: PaymentRecord,
  patch: PaymentPatch,
  now: Date,
  card: CardDetails | undefined,
  flushLater = false,
): Promise<{ next: PaymentRecord; card: CardDetails | undefined; attemptId: string; durable: ClaimedPayment['durable'] } | undefined> {
  const claimed = await stores.payments.claimPaymentAndOpenAttempt(payment, [payment.status], patch, now, { flushLater });
  return claimed && { next: claimed.payment, card, attemptId: claimed.attempt.attemptId, durable: claimed.durable };
}

/** Rolls back the claim's transaction (token consumption included) when another request claimed the payment first. */
class ClaimLost extends Error {}
