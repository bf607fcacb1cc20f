/**
 * Saving the instrument of a customer-present payment for later charges, when the payment asks for it
 * (setup_future_usage sent, a mandate_data block, or payment_type new_mandate / setup_mandate), names a customer,
 * and its rail has recurring on for the account (api-conventions §8). Off-session usage, a mandate_data block or a
 * setup_mandate payment also set up an active mandate. On the default account recurring is off on every rail, so
 * nothing is saved and mandate_id stays null (spec "not live today" 3).
 */
import { CustomerAcceptance } from '../../../../protocol/api/customer-acceptance';
import type { JsonObject, PaymentMethodData } from '../../../../protocol/api/payments';
import type { AuthContext } from '../auth/auth-context';
import type { MandateRecord } from '../../storage/mandates/records';
import type { PendingSaveInstrument, StoredCardFields, StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { PaymentRecord } from '../../storage/payments/records';
import type { Stores } from '../../storage/stores';
import type { CardDetails } from '../../vault/card-details';
import { recurringOn } from '../payment-methods/recurring-capability';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { recordMandateEvent } from './mandate-event';
import { decideMandateTransition } from './mandate-transitions';

export interface SavePlan {
  rail: string;
  paymentMethodData: PaymentMethodData;
  card: CardDetails | undefined;
  withMandate: boolean;
  customerAcceptance: JsonObject | null;
}

/** The VPA of a UPI collect payment: the instrument a UPI mandate charges (intent and QR name none). */
function collectVpa(data: PaymentMethodData): string | undefined {
  const upi = data.upi;
  if (upi === undefined || !('upi_collect' in upi)) return undefined;
  return upi.upi_collect.vpa_id ?? undefined;
}

const MANDATE_PAYMENT_TYPES = new Set(['new_mandate', 'setup_mandate']);

/** What a payment's request fields ask to keep: nothing, the instrument, or the instrument under a mandate. */
function futureUsageAsked(fields: JsonObject, setupFutureUsage: string | undefined): { asked: boolean; withMandate: boolean } {
  const usage = setupFutureUsage ?? (fields['setup_future_usage'] as string | undefined);
  const paymentType = fields['payment_type'] as string | undefined;
  const withMandate = usage === 'off_session' || fields['mandate_data'] != null || (paymentType !== undefined && MANDATE_PAYMENT_TYPES.has(paymentType));
  return { asked: withMandate || usage !== undefined, withMandate };
}

/**
 * The acceptance a mandate set up by this payment records: the payment's customer_acceptance (one sent at confirm has
 * replaced the create's), else mandate_data's. A value stored before acceptances were validated that is not one
 * counts as none.
 */
function acceptanceOf(fields: JsonObject): CustomerAcceptance | undefined {
  for (const value of [fields['customer_acceptance'], (fields['mandate_data'] as JsonObject | null | undefined)?.['customer_acceptance']]) {
    if (value === undefined) continue;
    const parsed = CustomerAcceptance.safeParse(value);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/**
 * Before a confirm claims the payment (or a create with confirm: true stores it): a payment that would set up a
 * mandate (it asks for one, names a customer, and its rail keeps instruments for the account) needs the customer's
 * acceptance, on the payment or in mandate_data; ERR_2001 naming customer_acceptance otherwise. Where the rail keeps
 * nothing (the default account), nothing is set up and nothing is asked.
 */
export function refuseMandateWithoutAcceptance(
  auth: AuthContext,
  payment: { customerId: string | null; requestFields: JsonObject },
  input: { rail: string; setupFutureUsage: string | undefined },
): void {
  if (payment.customerId === null || !recurringOn(auth.account.settings, auth.mode, input.rail)) return;
  if (!futureUsageAsked(payment.requestFields, input.setupFutureUsage).withMandate) return;
  if (acceptanceOf(payment.requestFields) !== undefined) return;
  throw new ApiError('ERR_2001', 'A payment that sets up a mandate needs the customer\'s acceptance: send customer_acceptance (at confirm, or in mandate_data).', {
    fieldName: 'customer_acceptance',
  });
}

/**
 * Decides, before the rail is asked, whether a successful outcome saves the instrument. `setupFutureUsage` is the
 * value the confirm sent, if any; the create body's value is in the payment's request fields. customer_acceptance
 * is read from the request fields of the claimed payment, where one sent at confirm has replaced the create's.
 */
export function planSaveForFutureUsage(
  auth: AuthContext,
  payment: PaymentRecord,
  input: { rail: string; paymentMethodData: PaymentMethodData; card: CardDetails | undefined; setupFutureUsage: string | undefined },
): SavePlan | undefined {
  const { asked, withMandate } = futureUsageAsked(payment.requestFields, input.setupFutureUsage);
  if (!asked || payment.customerId === null || !recurringOn(auth.account.settings, auth.mode, input.rail)) return undefined;
  const savable = input.card !== undefined || collectVpa(input.paymentMethodData) !== undefined;
  if (!savable) return undefined;
  const acceptance = acceptanceOf(payment.requestFields);
  return {
    rail: input.rail,
    paymentMethodData: input.paymentMethodData,
    card: input.card,
    // refuseMandateWithoutAcceptance refused a mandate without one before the claim.
    withMandate: withMandate && acceptance !== undefined,
    customerAcceptance: acceptance ?? null,
  };
}

/**
 * What a saved method will hold, sealed as soon as the card is in hand (a payment that waits for the customer
 * resolves later, when the card is no longer in memory): the id it will have, the card's display fields and
 * ciphertext, or the UPI VPA.
 */
export type SealedInstrument = PendingSaveInstrument;

export function sealInstrument(deps: CoreDeps, payment: PaymentRecord, plan: SavePlan): SealedInstrument {
  const paymentMethodId = deps.ids.id('paymentMethod');
  let card: StoredCardFields | null = null;
  let cardCiphertext: string | null = null;
  if (plan.card !== undefined && deps.vault !== undefined) {
    card = {
      last4: plan.card.last4,
      cardNetwork: plan.card.network,
      expMonth: plan.card.expMonth,
      expYear: plan.card.expYear,
      holderName: plan.card.holderName,
      nickName: null,
      cardIssuer: null,
      issuerCountry: null,
      cardType: payment.paymentMethodType === 'debit' ? 'debit' : 'credit',
    };
    cardCiphertext = deps.vault.sealStoredCard(payment, paymentMethodId, plan.card);
  }
  const vpa = collectVpa(plan.paymentMethodData);
  return {
    paymentMethodId,
    rail: plan.rail,
    card,
    cardCiphertext,
    upi: vpa !== undefined ? { vpa_id: vpa } : null,
    withMandate: plan.withMandate,
    customerAcceptance: plan.customerAcceptance,
  };
}

/**
 * In the transaction that records the successful outcome: inserts the saved method, the mandate with its
 * mandate_active event, makes the method the customer's default when there is none, and links both to the payment.
 * Nothing is saved for a customer deleted meanwhile (the payment itself stands). Returns the payment as updated.
 */
export async function saveForFutureUsage(deps: CoreDeps, tx: Stores, sealed: SealedInstrument, payment: PaymentRecord, now: Date): Promise<PaymentRecord> {
  const customerId = payment.customerId;
  if (customerId === null) return payment;
  // The customer's row, held for this transaction: a delete that committed first leaves no one to save for, and one
  // that comes later waits for this transaction, then deletes what it saved (delete-customer.ts).
  const customer = await tx.customers.holdLiveCustomer(payment, customerId);
  if (customer === undefined) return payment;
  const { paymentMethodId, card, cardCiphertext } = sealed;
  const method: StoredPaymentMethodRecord = {
    accountId: payment.accountId,
    mode: payment.mode,
    paymentMethodId,
    customerId,
    paymentMethod: payment.paymentMethod ?? (card !== null ? 'card' : 'upi'),
    paymentMethodType: payment.paymentMethodType,
    paymentMethodIssuer: null,
    card,
    cardCiphertext,
    upi: sealed.upi,
    wallet: null,
    bankTransfer: null,
    metadata: null,
    rail: sealed.rail,
    recurringEnabled: true,
    originPaymentId: payment.paymentId,
    lastUsedAt: now,
    createdAt: now,
    updatedAt: now,
  };
  if ((await tx.storedPaymentMethods.insertStoredPaymentMethod(method)) === 'duplicate') throw new Error('payment_method_id collided');

  let mandateId: string | null = null;
  // A pending save sealed before acceptances were validated may have none: the method is saved, no mandate.
  if (sealed.withMandate && CustomerAcceptance.safeParse(sealed.customerAcceptance).success) {
    const decision = decideMandateTransition(null, 'setup_payment_succeeded');
    if (!decision.allowed) throw new Error('mandate table has no creation row');
    const mandate: MandateRecord = {
      accountId: payment.accountId,
      mode: payment.mode,
      mandateId: deps.ids.id('mandate'),
      customerId,
      paymentMethodId,
      paymentMethod: method.paymentMethod,
      paymentMethodType: method.paymentMethodType,
      card,
      customerAcceptance: sealed.customerAcceptance,
      status: decision.to,
      originPaymentId: payment.paymentId,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
    };
    if ((await tx.mandates.insertMandate(mandate)) === 'duplicate') throw new Error('mandate_id collided');
    await recordMandateEvent(deps, tx, mandate, now);
    mandateId = mandate.mandateId;
  }

  if (customer.defaultPaymentMethodId === null) {
    await tx.customers.updateCustomer(payment, customerId, { defaultPaymentMethodId: paymentMethodId, updatedAt: now });
  }
  const linked = await tx.payments.updatePaymentIfStatus(payment, payment.paymentId, [payment.status], { paymentMethodId, mandateId, updatedAt: now });
  return linked ?? payment;
}

/** After a charge with a saved method succeeds: the method's last_used_at. */
export async function markStoredMethodUsed(tx: Stores, payment: PaymentRecord, now: Date): Promise<void> {
  if (payment.paymentMethodId == null) return;
  await tx.storedPaymentMethods.updateStoredPaymentMethod(payment, payment.paymentMethodId, { lastUsedAt: now, updatedAt: now });
}

/** What applyRailOutcome runs in the transaction of an outcome (kind: the rail's answer). */
export type OutcomeHook = (tx: Stores, next: PaymentRecord, kind: 'authorized' | 'declined' | 'customer_action', now: Date) => Promise<PaymentRecord>;

const SAVED_STATUSES = new Set(['succeeded', 'requires_capture', 'partially_captured', 'partially_captured_and_capturable']);

/**
 * Keeps the sealed instrument of a payment that waits, while its customer is live: the customer's row is held, so a
 * delete that committed first leaves nothing to keep, and one that comes later deletes it (delete-customer.ts).
 */
async function keepPendingSave(tx: Stores, payment: PaymentRecord, sealed: SealedInstrument, now: Date): Promise<void> {
  if (payment.customerId === null || (await tx.customers.holdLiveCustomer(payment, payment.customerId)) === undefined) return;
  await tx.pendingMethodSaves.insertPendingSave({ accountId: payment.accountId, mode: payment.mode, paymentId: payment.paymentId, instrument: sealed, createdAt: now });
}

/**
 * The hook confirm hands to applyRailOutcome: a charge with a saved method marks it used; a payment that asks to
 * save its instrument (planSaveForFutureUsage) saves it when authorized, or keeps it sealed as a pending save when
 * the customer still has to act (settlePendingSave finishes it). Undefined when neither applies.
 */
export function recurringAfterOutcome(
  deps: CoreDeps,
  auth: AuthContext,
  payment: PaymentRecord,
  input: { stored: boolean; rail: string; card: CardDetails | undefined; setupFutureUsage: string | undefined },
): OutcomeHook | undefined {
  if (input.stored) {
    return async (tx, next, kind, now) => {
      if (kind === 'authorized') await markStoredMethodUsed(tx, next, now);
      return next;
    };
  }
  if (payment.paymentMethodData === null) return undefined;
  const plan = planSaveForFutureUsage(auth, payment, {
    rail: input.rail,
    paymentMethodData: payment.paymentMethodData,
    card: input.card,
    setupFutureUsage: input.setupFutureUsage,
  });
  if (plan === undefined) return undefined;
  const sealed = sealInstrument(deps, payment, plan);
  return async (tx, next, kind, now) => {
    if (kind === 'authorized' && SAVED_STATUSES.has(next.status)) return saveForFutureUsage(deps, tx, sealed, next, now);
    if (kind === 'customer_action') await keepPendingSave(tx, next, sealed, now);
    return next;
  };
}

/**
 * The default hook of a later rail answer (simulator page, sync, sweep): a pending save of the payment is taken; it
 * becomes the saved method (and mandate) when the payment was authorized, and is dropped, ciphertext included,
 * when it was not or its customer was deleted meanwhile.
 */
export async function settlePendingSave(deps: CoreDeps, tx: Stores, next: PaymentRecord, kind: 'authorized' | 'declined' | 'customer_action', now: Date): Promise<PaymentRecord> {
  if (kind === 'customer_action') return next;
  // Most later answers have none: a read tells, and only a payment that has one goes on to hold rows.
  if (!(await tx.pendingMethodSaves.hasPendingSave(next, next.paymentId))) return next;
  // A save holds the customer's row before it takes the pending save's, in the order a delete of the customer takes
  // them (delete-customer.ts); the other order could deadlock with it on PostgreSQL.
  const customerId = kind === 'authorized' && SAVED_STATUSES.has(next.status) ? next.customerId : null;
  const customer = customerId === null ? undefined : await tx.customers.holdLiveCustomer(next, customerId);
  const pending = await tx.pendingMethodSaves.takePendingSave(next, next.paymentId);
  if (pending === undefined || customer === undefined) return next;
  return saveForFutureUsage(deps, tx, pending.instrument, next, now);
}
