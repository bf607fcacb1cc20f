import type { RefundRecord } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/** The refunds of one payment, oldest first, as retrieve shows them (Hyperswitch's PaymentsResponse.refunds). */
export function listRefundsOfPayment(deps: CoreDeps, auth: AuthContext, paymentId: string): Promise<RefundRecord[]> {
  return deps.store.refunds.listRefundsOfPayment(auth, paymentId);
}
