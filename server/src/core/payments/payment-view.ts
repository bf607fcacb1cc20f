import type { JsonObject, PaymentResponse, WalletSummary } from '../../../../protocol/api/payments';
import type { CardSummary } from '../../../../protocol/api/vault';
import { isoString } from '../../kernel/clock';
import type { PaymentRecord } from '../../storage/payments/records';

/** The card summary a card payment keeps after its psp_token was consumed (never the number). */
function cardSummary(payment: PaymentRecord): CardSummary | undefined {
  const card = payment.rail === 'card' ? payment.paymentMethodData?.card : undefined;
  if (card === undefined) return undefined;
  const { last4, card_network: network, exp_month: month, exp_year: year } = card;
  if (typeof last4 !== 'string' || typeof month !== 'string' || typeof year !== 'string') return undefined;
  return { last4, card_network: typeof network === 'string' ? network : null, exp_month: month, exp_year: year };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * What a wallet payment shows of its wallet once the card acquirer took it, keyed by payment_method_type: the card
 * the wallet reported (Google Pay info.card_details / card_network, Apple Pay payment_method.display_name's last four
 * digits / network / type), never the token. PayPal reports no card: `{}`.
 */
function walletSummary(payment: PaymentRecord): WalletSummary | undefined {
  const wallet = payment.rail === 'card' && payment.paymentMethod === 'wallet' ? payment.paymentMethodData?.wallet : undefined;
  if (wallet === undefined) return undefined;
  if (wallet.google_pay !== undefined) {
    const { info, type } = wallet.google_pay;
    return { google_pay: { last4: info.card_details, card_network: info.card_network, type } };
  }
  if (wallet.apple_pay !== undefined) {
    const method = wallet.apple_pay.payment_method;
    return { apple_pay: { last4: /(\d{4})$/.exec(method.display_name)?.[1] ?? null, card_network: method.network, type: method.type } };
  }
  if (wallet.paypal_sdk !== undefined) return { paypal: {} };
  return undefined;
}

function objectOrNull(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** What the response shows of the instrument: the card or wallet summary and the billing address sent with it. */
function methodDataView(card: CardSummary | undefined, wallet: WalletSummary | undefined, billing: JsonObject | null): PaymentResponse['payment_method_data'] {
  if (card === undefined && wallet === undefined && billing === null) return null;
  // Assigned, not spread (docs/architecture.md, "Objects on hot paths").
  const view: NonNullable<PaymentResponse['payment_method_data']> = {};
  if (card !== undefined) view.card = card;
  if (wallet !== undefined) view.wallet = wallet;
  if (billing !== null) view.billing = billing;
  return view;
}

/**
 * The payment's customer object (Hyperswitch CustomerDetailsResponse): id from customer_id, the rest from the
 * `customer` object of the request; null when the payment names no customer.
 */
export function customerOf(payment: PaymentRecord): PaymentResponse['customer'] {
  const given = payment.requestFields['customer'];
  const details = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  const id = payment.customerId ?? text(details['id']);
  if (id === null && Object.keys(details).length === 0) return null;
  return {
    id,
    name: text(details['name']),
    email: text(details['email']),
    phone: text(details['phone']),
    phone_country_code: text(details['phone_country_code']),
  };
}

/** The payment object as the API returns it (the spec's response fields; Hyperswitch names). */
export function toPaymentResponse(payment: PaymentRecord): PaymentResponse {
  const card = cardSummary(payment);
  const netAmount = payment.amount + (payment.shippingCost ?? 0) + (payment.orderTaxAmount ?? 0);
  return {
    payment_id: payment.paymentId,
    status: payment.status,
    amount: payment.amount,
    net_amount: netAmount,
    shipping_cost: payment.shippingCost,
    amount_capturable: payment.amountCapturable,
    amount_received: payment.amountReceived,
    client_secret: payment.clientSecret,
    created: isoString(payment.createdAt),
    modified_at: isoString(payment.updatedAt),
    expires_on: isoString(payment.clientSecretExpiresAt),
    currency: payment.currency,
    customer_id: payment.customerId,
    customer: customerOf(payment),
    description: payment.description,
    mandate_id: payment.mandateId ?? null,
    setup_future_usage: payment.setupFutureUsage,
    capture_method: payment.captureMethod,
    payment_method: payment.paymentMethod,
    payment_method_type: payment.paymentMethodType,
    return_url: payment.returnUrl,
    next_action: payment.status === 'requires_customer_action' ? payment.nextAction : null,
    error_code: payment.errorCode,
    error_message: payment.errorMessage,
    error_reason: payment.errorReason,
    metadata: payment.metadata,
    reference_id: payment.railReference,
    payment_link: null,
    payment_method_id: payment.paymentMethodId ?? null,
    merchant_order_reference_id: payment.merchantOrderReferenceId,
    order_tax_amount: payment.orderTaxAmount,
    profile_id: payment.profileId,
    connector: payment.connector,
    payment_method_data: methodDataView(card, walletSummary(payment), objectOrNull(payment.paymentMethodData?.['billing'])),
    billing: objectOrNull(payment.requestFields['billing']),
    shipping: objectOrNull(payment.requestFields['shipping']),
    cancellation_reason: payment.cancellationReason ?? null,
  };
}
