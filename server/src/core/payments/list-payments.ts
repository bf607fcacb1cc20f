import { PAYMENT_LIST_LIMITS, type ListPaymentsQuery, type PaymentListResponse } from '../../../../protocol/api/payment-ops';
import type { PaymentListQuery } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toPaymentResponse } from './payment-view';

/**
 * GET /payments/list (secret key): newest first, payment_id breaking ties between equal created timestamps, so
 * cursor paging (starting_after / ending_before, payment ids) neither skips nor repeats a payment.
 */
export async function listPayments(deps: CoreDeps, auth: AuthContext, query: ListPaymentsQuery): Promise<PaymentListResponse> {
  const cursorOf = async (field: 'starting_after' | 'ending_before') => {
    const paymentId = query[field];
    if (paymentId === undefined) return undefined;
    const payment = await deps.store.payments.findPayment(auth, paymentId);
    if (payment === undefined) {
      throw new ApiError('ERR_4013', `${field} names no payment of this account and mode.`, { fieldName: field });
    }
    return { createdAt: payment.createdAt, paymentId: payment.paymentId };
  };
  const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value));
  const startingAfter = await cursorOf('starting_after');
  const endingBefore = await cursorOf('ending_before');
  const created = {
    eq: date(query.created),
    lt: date(query['created.lt']),
    gt: date(query['created.gt']),
    lte: date(query['created.lte']),
    gte: date(query['created.gte']),
  };
  const listQuery: PaymentListQuery = {
    limit: query.limit ?? PAYMENT_LIST_LIMITS.defaultLimit,
    created: Object.fromEntries(Object.entries(created).filter(([, value]) => value !== undefined)),
    ...(query.customer_id !== undefined ? { customerId: query.customer_id } : {}),
    ...(startingAfter !== undefined ? { startingAfter } : {}),
    ...(endingBefore !== undefined ? { endingBefore } : {}),
  };
  const payments = await deps.store.paymentList.listPayments(auth, listQuery);
  return { size: payments.length, data: payments.map(toPaymentResponse) };
}
