import type { RetrieveRefundQuery } from '../../../../protocol/api/refunds';
import type { RefundRecord } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findRefundOrThrow } from './find-refund';
import { syncRefundWithRail } from './sync-refund';

/** GET /refunds/{refund_id} (secret key); force_sync=true first asks the rail about a refund it has not settled. */
export async function retrieveRefund(deps: CoreDeps, auth: AuthContext, refundId: string, query: RetrieveRefundQuery = {}): Promise<RefundRecord> {
  const refund = await findRefundOrThrow(deps, auth, refundId);
  return query.force_sync === 'true' ? syncRefundWithRail(deps, refund) : refund;
}
