/**
 * A charge with a saved instrument: off-session under a mandate (mandate_id, or recurring_details naming a mandate or
 * a payment method that has an active mandate), or on-session with payment_token (a saved method of the payment's
 * customer). On the default account no rail has recurring on, so no mandate exists and every off-session charge is
 * refused with ERR_4088 (spec "not live today" 3); a saved method is not chargeable either.
 */
import type { JsonObject, PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentMethodType } from '../../../../protocol/api/enums';
import type { AuthContext } from '../auth/auth-context';
import type { PaymentRecord } from '../../storage/payments/records';
import type { StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { CardDetails } from '../../vault/card-details';
import { recurringOn } from '../payment-methods/recurring-capability';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { Scope } from '../../kernel/store-types';
import type { Stores } from '../../storage/stores';

/** The request fields that ask for a charge with a saved instrument. */
export interface StoredChargeFields {
  offSession: unknown;
  mandateId: unknown;
  recurringDetails: unknown;
  paymentToken: unknown;
  /** Whether the confirm carries payment_method_data of its own (then payment_token is only echoed). */
  hasPaymentMethodData: boolean;
}

export interface StoredCharge {
  paymentMethodData: PaymentMethodData;
  paymentMethodType: PaymentMethodType | null;
  card?: CardDetails;
  paymentMethodId: string;
  mandateId: string | null;
}

function noUsableMandate(fieldName: string, why: string): ApiError {
  return new ApiError('ERR_4088', `Off-session charge without a usable mandate: ${why}`, { fieldName });
}

/**
 * Off-session charges are merchant-initiated: a browser holding a payment's or a subscription's client_secret
 * (a publishable key) may not charge a mandate. ERR_4088 naming the field that asked.
 */
export function requireSecretKeyToChargeMandate(auth: AuthContext, fieldName: string): void {
  if (auth.keyKind !== 'secret') throw noUsableMandate(fieldName, 'an off-session charge is merchant-initiated and needs the secret key.');
}

/**
 * In the transaction that claims a payment charged under a mandate: holds the mandate's row by a write that matches
 * an active mandate only (active to active), so that a revocation that committed after resolveStoredCharge read it
 * refuses the charge (ERR_4088, nothing claimed), and one that comes later waits for the claim. A revocation
 * acknowledged to its caller is never followed by a charge under the mandate.
 */
export async function holdActiveMandate(tx: Stores, scope: Scope, mandateId: string, now: Date): Promise<void> {
  if ((await tx.mandates.updateMandateStatusIf(scope, mandateId, ['active'], 'active', now)) === undefined) {
    throw noUsableMandate('mandate_id', 'the mandate was revoked.');
  }
}

/** What a saved method charges with: the card from the vault, or the UPI VPA; undefined when it holds neither. */
function instrumentOf(deps: CoreDeps, method: StoredPaymentMethodRecord): Omit<StoredCharge, 'mandateId'> | undefined {
  const base = { paymentMethodId: method.paymentMethodId, paymentMethodType: method.paymentMethodType };
  if (method.cardCiphertext !== null && method.card?.expMonth && method.card.expYear && deps.vault !== undefined) {
    const card = deps.vault.openStoredCard(method, method.paymentMethodId, method.cardCiphertext, { expMonth: method.card.expMonth, expYear: method.card.expYear });
    const summary: JsonObject = { last4: card.last4, card_network: method.card.cardNetwork, exp_month: card.expMonth, exp_year: card.expYear };
    return Object.assign(base, { paymentMethodData: { card: summary }, card });
  }
  const vpa = method.upi?.['vpa_id'];
  if (typeof vpa === 'string') return Object.assign(base, { paymentMethodData: { upi: { upi_collect: { vpa_id: vpa } } } });
  return undefined;
}

function chargeable(deps: CoreDeps, auth: AuthContext, method: StoredPaymentMethodRecord | undefined): Omit<StoredCharge, 'mandateId'> | undefined {
  if (method === undefined || !method.recurringEnabled || !recurringOn(auth.account.settings, auth.mode, method.rail)) return undefined;
  return instrumentOf(deps, method);
}

/**
 * Resolves the saved instrument a confirm asks for, or undefined when it asks for none. Off-session without a usable
 * mandate: ERR_4088 naming the field that asked. payment_token that names no chargeable method of the payment's
 * customer: ERR_4004.
 */
export async function resolveStoredCharge(
  deps: CoreDeps,
  auth: AuthContext,
  payment: Pick<PaymentRecord, 'customerId'>,
  fields: StoredChargeFields,
): Promise<StoredCharge | undefined> {
  const details = fields.recurringDetails as { type?: unknown; data?: unknown } | null | undefined;
  if (fields.mandateId != null || details != null) {
    const field = fields.mandateId != null ? 'mandate_id' : 'recurring_details';
    requireSecretKeyToChargeMandate(auth, field);
    let mandateId: string | undefined;
    if (fields.mandateId != null) mandateId = String(fields.mandateId);
    else if (details?.type === 'mandate_id' && typeof details.data === 'string') mandateId = details.data;
    let methodId: string | undefined;
    if (mandateId !== undefined) {
      const mandate = await deps.store.mandates.findMandate(auth, mandateId);
      if (mandate === undefined || mandate.status !== 'active') throw noUsableMandate(field, 'no active mandate has this id.');
      // As Hyperswitch asks of a recurring charge: the payment names the customer, who must be the mandate's.
      if (payment.customerId === null) {
        throw new ApiError('ERR_2001', 'customer_id is required to charge a mandate: the customer the mandate belongs to.', { fieldName: 'customer_id' });
      }
      if (payment.customerId !== mandate.customerId) throw noUsableMandate(field, 'the mandate belongs to another customer.');
      methodId = mandate.paymentMethodId;
    } else if (details?.type === 'payment_method_id' && typeof details.data === 'string') {
      methodId = details.data;
      if (payment.customerId === null) throw noUsableMandate(field, 'a payment_method_id charge needs the customer_id of the payment method.');
      const mandates = await deps.store.mandates.listMandates(auth, { limit: 100, offset: 0, status: 'active', customerId: payment.customerId });
      const mandate = mandates.find((candidate) => candidate.paymentMethodId === methodId);
      if (mandate === undefined) throw noUsableMandate(field, 'the payment method has no active mandate of this customer.');
      mandateId = mandate.mandateId;
    } else {
      throw noUsableMandate(field, 'recurring_details must be {"type": "mandate_id" | "payment_method_id", "data": "<id>"}.');
    }
    const instrument = chargeable(deps, auth, await deps.store.storedPaymentMethods.findStoredPaymentMethod(auth, methodId));
    if (instrument === undefined) throw noUsableMandate(field, 'the payment method of the mandate cannot be charged.');
    return Object.assign(instrument, { mandateId });
  }
  if (fields.offSession === true) throw noUsableMandate('off_session', 'off_session needs a mandate_id or recurring_details naming the mandate.');
  if (typeof fields.paymentToken === 'string' && !fields.hasPaymentMethodData) {
    const method = await deps.store.storedPaymentMethods.findStoredPaymentMethod(auth, fields.paymentToken);
    if (method === undefined || payment.customerId === null || method.customerId !== payment.customerId) {
      throw new ApiError('ERR_4004', 'payment_token names no saved payment method of the customer of this payment.', { fieldName: 'payment_token' });
    }
    const instrument = chargeable(deps, auth, method);
    if (instrument === undefined) {
      throw new ApiError('ERR_4004', 'This saved payment method cannot be charged: its rail keeps no instrument for later charges on this account.', {
        fieldName: 'payment_token',
      });
    }
    return Object.assign(instrument, { mandateId: null });
  }
  return undefined;
}
