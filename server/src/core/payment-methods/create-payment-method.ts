import type { CreatePaymentMethodRequest } from '../../../../protocol/api/payment-methods';
import type { StoredCardFields, StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { AuthContext } from '../auth/auth-context';
import { findLiveCustomer } from '../customers/find-live-customer';
import type { CoreDeps } from '../shared/deps';
import { normalizeExpiry, refuseCardNumber } from './card-input';
import { refuseClientSecretWithSecretKey } from './payment-of-client-secret';

/**
 * POST /payment_methods (secret key). Writes the token record the spec's today-behaviour describes: it responds
 * normally, but the method carries no instrument that can be charged (recurring_enabled false): no card number is
 * ever accepted here (ERR_2029), so only a method saved from a payment on a rail with recurring on is chargeable.
 */
export async function createPaymentMethod(deps: CoreDeps, auth: AuthContext, body: CreatePaymentMethodRequest): Promise<StoredPaymentMethodRecord> {
  refuseCardNumber(body.card);
  refuseClientSecretWithSecretKey(auth, body.client_secret);
  if (body.customer_id !== undefined) await findLiveCustomer(deps.store, auth, body.customer_id);
  const now = deps.clock.now();
  let card: StoredCardFields | null = null;
  if (body.card !== undefined || body.payment_method === 'card') {
    const expiry =
      body.card?.card_exp_month !== undefined && body.card.card_exp_year !== undefined
        ? normalizeExpiry(body.card.card_exp_month, body.card.card_exp_year)
        : undefined;
    card = {
      last4: null,
      cardNetwork: body.card?.card_network ?? body.card_network ?? null,
      expMonth: expiry?.expMonth ?? null,
      expYear: expiry?.expYear ?? null,
      holderName: body.card?.card_holder_name ?? null,
      nickName: body.card?.nick_name ?? null,
      cardIssuer: body.card?.card_issuer ?? null,
      issuerCountry: body.card?.card_issuing_country ?? null,
      cardType: body.card?.card_type ?? null,
    };
  }
  const method: StoredPaymentMethodRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    paymentMethodId: deps.ids.id('paymentMethod'),
    customerId: body.customer_id ?? null,
    paymentMethod: body.payment_method,
    paymentMethodType: body.payment_method_type ?? null,
    paymentMethodIssuer: body.payment_method_issuer ?? null,
    card,
    cardCiphertext: null,
    upi: null,
    wallet: null,
    bankTransfer: body.bank_transfer ?? null,
    metadata: body.metadata ?? null,
    rail: null,
    recurringEnabled: false,
    originPaymentId: null,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  if ((await deps.store.storedPaymentMethods.insertStoredPaymentMethod(method)) === 'duplicate') {
    throw new Error('payment_method_id collided');
  }
  return method;
}
