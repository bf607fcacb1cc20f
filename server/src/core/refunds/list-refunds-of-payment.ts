import { REFUND_LIMITS } from '../../../../protocol/api/refunds';
import type { RefundRecord } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * How many refunds retrieve embeds in a payment: the refund list's largest page. A payment may have a refund per 100
 * minor units it received, so all of them would make its retrieve as large as its refunds; POST /refunds/list with
 * payment_id pages through the rest.
 */
export const EMBEDDED_REFUNDS_LIMIT = REFUND_LIMITS.listMaxLimit;

/**
 * The refunds retrieve shows on a payment (Hyperswitch's PaymentsResponse.refunds): its latest EMBEDDED_REFUNDS_LIMIT,
 * oldest first.
 */
export function listRefundsOfPayment(deps: CoreDeps, auth: AuthContext, paymentId: string): Promise<RefundRecord[]> {
  return deps.store.refunds.listRefundsOfPayment(auth, paymentId, EMBEDDED_REFUNDS_LIMIT);
}
