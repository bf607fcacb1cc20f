import { CLIENT_SECRET_RANDOM_LENGTH, clientSecretOf } from '../../../../protocol/ids';
import { DEFAULT_SESSION_EXPIRY_SECONDS, type CreatePaymentRequest, type JsonObject } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import { fingerprint } from '../shared/canonical-json';
import { executeConfirm } from './confirm-payment';
import { unusablePspToken } from './consume-psp-token';
import { walletTokenField, withoutWalletToken } from './wallet-data';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { insertPaymentWithCustomer } from './payment-customer';
import { chooseRail, resolvePaymentMethod } from './payment-method';
import { decideTransition } from './payment-transitions';
import { asksForSavedInstrument, refuseOffSessionCharge } from './recurring';
import { recurringOnAnyRail } from '../payment-methods/recurring-capability';
import { resolveStoredCharge } from '../mandates/stored-charge';
import { refuseMandateWithoutAcceptance } from '../mandates/save-for-future-usage';

export interface CreatePaymentResult {
  payment: PaymentRecord;
  /** True when an earlier create with the same payment_id and body was found (idempotent replay). */
  replayed: boolean;
}

/**
 * POST /payments (secret key). payment_id gives idempotency (api-conventions §5): the same id with the same body
 * returns the stored payment; the same id with another body is refused with ERR_4002. confirm: true goes on to
 * confirm when payment_method_data is present.
 */
export async function createPayment(deps: CoreDeps, auth: AuthContext, body: CreatePaymentRequest): Promise<CreatePaymentResult> {
  const requestFingerprint = fingerprint(body);
  const paymentId = body.payment_id ?? deps.ids.id('payment');

  if (body.payment_id != null) {
    const existing = await deps.store.payments.findPayment(auth, body.payment_id);
    if (existing !== undefined) return { payment: replayOrConflict(existing, requestFingerprint), replayed: true };
  }

  const profile =
    body.profile_id === undefined
      ? (auth.defaultProfile ?? (await deps.store.profiles.findDefaultProfile(auth.accountId)))
      : await deps.store.profiles.findProfile(auth.accountId, body.profile_id);
  if (profile === undefined) {
    if (body.profile_id !== undefined) {
      throw new ApiError('ERR_2003', 'profile_id names no business profile of this account.', { fieldName: 'profile_id' });
    }
    throw new Error(`account ${auth.accountId} has no default business profile`);
  }

  const decision = decideTransition(null, 'create', {
    hasPaymentMethodData: body.payment_method_data !== undefined,
    captureMethod: body.capture_method ?? 'automatic',
  });
  if (!decision.allowed) throw new Error('unreachable: create has a row for every condition');

  const captureMethod = body.capture_method ?? 'automatic';
  // An off-session charge (mandate_id, off_session, recurring_details) is refused before anything is stored when no
  // rail of the account keeps instruments (the default account); otherwise confirm resolves the mandate.
  if (body.confirm === true && !recurringOnAnyRail(auth.account.settings, auth.mode)) refuseOffSessionCharge(body);
  // Where recurring is on, an unusable mandate or saved method is refused before anything is stored, too.
  if (body.confirm === true && (asksForSavedInstrument(body) || body.off_session === true)) {
    await resolveStoredCharge(deps, auth, { customerId: body.customer_id ?? null }, {
      offSession: body.off_session,
      mandateId: body.mandate_id,
      recurringDetails: body.recurring_details,
      paymentToken: body.payment_token,
      hasPaymentMethodData: body.payment_method_data !== undefined,
    });
  }
  const method = body.payment_method_data && resolvePaymentMethod(body.payment_method_data, body.payment_method, body.payment_method_type);
  if (body.confirm === true && body.payment_method_data !== undefined && method !== undefined) {
    // Refuse before anything is stored when the payment could not be confirmed anyway.
    const rail = chooseRail(auth.account.settings, deps.rails, auth.mode, body.currency, method, captureMethod, body.allowed_payment_method_types);
    if (!asksForSavedInstrument(body) && body.off_session !== true) {
      refuseMandateWithoutAcceptance(auth, { customerId: body.customer_id ?? null, requestFields: body as JsonObject }, { rail: rail.settings.rail, setupFutureUsage: undefined });
    }
  }

  // A psp_token is minted for a payment that exists, so none can be this new payment's; refused before it is stored
  // (a created payment kept it, also when its confirm then refused it).
  if (body.payment_method_data?.psp_token !== undefined) throw unusablePspToken();
  // A wallet's token goes to the rail with the confirm and is never stored: a create that does not confirm refuses it
  // (it would keep it until someone confirms), and one that does stores the payment without it.
  const walletToken = walletTokenField(body.payment_method_data);
  if (walletToken !== undefined && body.confirm !== true) {
    throw new ApiError('ERR_2003', `${walletToken} is taken only by the confirm that uses it: create with confirm: true, or send it to POST /payments/{payment_id}/confirm.`, {
      fieldName: walletToken,
    });
  }

  const now = deps.clock.now();
  const sessionExpiry = body.session_expiry ?? DEFAULT_SESSION_EXPIRY_SECONDS;
  const { payment_method_data: _data, ...requestFields } = body;
  const payment: PaymentRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    paymentId,
    profileId: profile.profileId,
    status: decision.to,
    amount: body.amount,
    currency: body.currency,
    amountCapturable: body.amount,
    amountReceived: null,
    amountToCapture: body.amount_to_capture ?? null,
    shippingCost: body.shipping_cost ?? null,
    orderTaxAmount: body.order_tax_amount ?? null,
    captureMethod,
    customerId: body.customer_id ?? null,
    description: body.description ?? null,
    returnUrl: body.return_url ?? null,
    // The spec's default: "if omitted, on_session".
    setupFutureUsage: body.setup_future_usage ?? 'on_session',
    paymentMethod: method?.paymentMethod ?? body.payment_method ?? null,
    paymentMethodType: method?.paymentMethodType ?? body.payment_method_type ?? null,
    paymentMethodData: body.payment_method_data === undefined ? null : withoutWalletToken(body.payment_method_data),
    metadata: body.metadata ?? null,
    merchantOrderReferenceId: body.merchant_order_reference_id ?? null,
    clientSecret: clientSecretOf(paymentId, deps.ids.secret(CLIENT_SECRET_RANDOM_LENGTH)),
    clientSecretExpiresAt: new Date(now.getTime() + sessionExpiry * 1000),
    nextAction: null,
    errorCode: null,
    errorMessage: null,
    errorReason: null,
    rail: null,
    connector: null,
    railReference: null,
    railState: null,
    requestFingerprint,
    requestFields: requestFields as JsonObject,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };

  // A customer_id naming no customer creates it in the same transaction (payment-customer.ts).
  const inserted = await insertPaymentWithCustomer(deps, payment, body.customer);
  if (inserted === 'duplicate') {
    // Another create with this payment_id won the race (or a generated id collided, which 119 bits make moot).
    const existing = await deps.store.payments.findPayment(auth, paymentId);
    if (existing === undefined) throw new Error(`payment ${paymentId} reported duplicate but not found`);
    return { payment: replayOrConflict(existing, requestFingerprint), replayed: true };
  }

  if (body.confirm === true && (payment.status === 'requires_confirmation' || asksForSavedInstrument(body))) {
    return { payment: await executeConfirm(deps, auth, payment, { paymentMethodData: body.payment_method_data }), replayed: false };
  }
  return { payment, replayed: false };
}

function replayOrConflict(existing: PaymentRecord, requestFingerprint: string): PaymentRecord {
  if (existing.requestFingerprint !== requestFingerprint) {
    throw new ApiError('ERR_4002', 'payment_id already exists with a different request body.', {
      fieldName: 'payment_id',
    });
  }
  return existing;
}
