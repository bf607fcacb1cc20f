import type { RefundRecord } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findRefundOrThrow } from './find-refund';

/** GET /refunds/{refund_id} (secret key). */
export async function retrieveRefund(deps: CoreDeps, auth: AuthContext, refundId: string): Promise<RefundRecord> {
  return findRefundOrThrow(deps, auth, refundId);
}
