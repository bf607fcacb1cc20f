import type { PaymentRecord } from '../../storage/payments/records';
import type { Scope } from '../../kernel/store-types';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * The payment with this id in the caller's account and mode, or ERR_4001. The message never repeats the id: ids
 * come from the caller and can be anything, a card number included (docs/security.md).
 */
export async function findPaymentOrThrow(deps: CoreDeps, scope: Scope, paymentId: string, fieldName?: string): Promise<PaymentRecord> {
  const payment = await deps.store.payments.findPayment(scope, paymentId);
  if (payment === undefined) {
    throw new ApiError('ERR_4001', 'No such payment exists for this account and mode.', fieldName === undefined ? {} : { fieldName });
  }
  return payment;
}
