import type { CustomerPaymentMethod, PaymentMethodResponse, StoredCard } from '../../../../protocol/api/payment-methods';
import type { StoredCardFields, StoredPaymentMethodRecord } from '../../storage/payment-methods/records';

export function toStoredCard(card: StoredCardFields | null, savedToLocker: boolean): StoredCard | null {
  if (card === null) return null;
  return {
    scheme: card.cardNetwork,
    last4_digits: card.last4,
    expiry_month: card.expMonth,
    expiry_year: card.expYear,
    card_holder_name: card.holderName,
    nick_name: card.nickName,
    card_network: card.cardNetwork,
    card_issuer: card.cardIssuer,
    issuer_country: card.issuerCountry,
    card_type: card.cardType,
    saved_to_locker: savedToLocker,
  };
}

/** The stored payment method object; client_secret only when the caller presented it. */
export function toPaymentMethodResponse(method: StoredPaymentMethodRecord, clientSecret: string | null = null): PaymentMethodResponse {
  return {
    merchant_id: method.accountId,
    customer_id: method.customerId,
    payment_method_id: method.paymentMethodId,
    payment_method: method.paymentMethod,
    payment_method_type: method.paymentMethodType,
    card: toStoredCard(method.card, method.cardCiphertext !== null),
    recurring_enabled: method.recurringEnabled,
    installment_payment_enabled: false,
    payment_experience: null,
    metadata: method.metadata,
    created: method.createdAt.toISOString(),
    bank_transfer: method.bankTransfer,
    wallet: method.wallet,
    last_used_at: method.lastUsedAt?.toISOString() ?? null,
    client_secret: clientSecret,
  };
}

/**
 * One entry of a customer's list. payment_token is the payment_method_id: a confirm with it charges the method only
 * for a payment of the same customer (docs/open-points.md).
 */
export function toCustomerPaymentMethod(method: StoredPaymentMethodRecord, customerId: string, defaultId: string | null): CustomerPaymentMethod {
  return {
    payment_token: method.paymentMethodId,
    payment_method_id: method.paymentMethodId,
    customer_id: customerId,
    payment_method: method.paymentMethod,
    payment_method_type: method.paymentMethodType,
    payment_method_issuer: method.paymentMethodIssuer,
    recurring_enabled: method.recurringEnabled,
    installment_payment_enabled: false,
    payment_experience: null,
    card: toStoredCard(method.card, method.cardCiphertext !== null),
    metadata: method.metadata,
    created: method.createdAt.toISOString(),
    requires_cvv: false,
    last_used_at: method.lastUsedAt?.toISOString() ?? null,
    default_payment_method_set: method.paymentMethodId === defaultId,
  };
}
