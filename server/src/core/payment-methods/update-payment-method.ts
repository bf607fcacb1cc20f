import type { UpdatePaymentMethodRequest } from '../../../../protocol/api/payment-methods';
import type { StoredPaymentMethodRecord } from '../../storage/payment-methods/records';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { normalizeExpiry, refuseCardNumber } from './card-input';
import { findStoredPaymentMethodOrThrow } from './find-payment-method';
import { paymentOfClientSecret, refuseClientSecretWithSecretKey } from './payment-of-client-secret';

/**
 * POST /payment_methods/{method_id}/update (secret key, or publishable key with the client_secret of a payment of
 * the method's customer). Partial: omitted fields keep their stored values. The number never changes (ERR_2029); a
 * new expiry is what a later charge uses, so it carries a saved card past its old expiry.
 */
export async function updatePaymentMethod(
  deps: CoreDeps,
  auth: AuthContext,
  paymentMethodId: string,
  body: UpdatePaymentMethodRequest,
): Promise<StoredPaymentMethodRecord> {
  refuseCardNumber(body.card);
  refuseClientSecretWithSecretKey(auth, body.client_secret);
  // A publishable key is checked before anything about the method is read.
  const payment = auth.keyKind === 'publishable' ? await paymentOfClientSecret(deps, auth, body.client_secret) : undefined;
  const method = payment === undefined ? await findStoredPaymentMethodOrThrow(deps.store, auth, paymentMethodId) : await methodOfPaymentCustomer(deps, auth, payment, paymentMethodId);
  const card = body.card;
  if (card !== undefined && method.card === null) {
    throw new ApiError('ERR_2003', 'card can be updated only on a card payment method.', { fieldName: 'card' });
  }
  if ((card?.card_exp_month === undefined) !== (card?.card_exp_year === undefined)) {
    throw new ApiError('ERR_2001', 'A new expiry needs both card_exp_month and card_exp_year.', {
      fieldName: card?.card_exp_month === undefined ? 'card.card_exp_month' : 'card.card_exp_year',
    });
  }
  const expiry = card?.card_exp_month !== undefined && card.card_exp_year !== undefined ? normalizeExpiry(card.card_exp_month, card.card_exp_year) : undefined;
  const updated = await deps.store.storedPaymentMethods.updateStoredPaymentMethod(auth, paymentMethodId, {
    updatedAt: deps.clock.now(),
    ...(card !== undefined && method.card !== null
      ? {
          card: {
            ...method.card,
            ...(expiry !== undefined ? expiry : {}),
            ...(card.card_holder_name !== undefined ? { holderName: card.card_holder_name } : {}),
            ...(card.nick_name !== undefined ? { nickName: card.nick_name } : {}),
          },
        }
      : {}),
    ...(body.wallet !== undefined ? { wallet: body.wallet } : {}),
  });
  if (updated === undefined) throw new ApiError('ERR_4100', 'No such stored payment method exists for this account and mode.');
  return updated;
}

/** A publishable key's method: one answer for a method of another customer and for an id that names none. */
async function methodOfPaymentCustomer(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord, paymentMethodId: string): Promise<StoredPaymentMethodRecord> {
  const method = await deps.store.storedPaymentMethods.findStoredPaymentMethod(auth, paymentMethodId);
  if (method === undefined || payment.customerId === null || payment.customerId !== method.customerId) {
    throw new ApiError('ERR_4100', 'No such stored payment method exists for the customer of this payment.');
  }
  return method;
}
