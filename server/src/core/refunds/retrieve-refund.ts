import type { RefundRecord } from '../../storage/refunds/records';
import { requireKeyKind } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** GET /refunds/{refund_id} (secret key). */
export async function retrieveRefund(deps: CoreDeps, auth: AuthContext, refundId: string): Promise<RefundRecord> {
  requireKeyKind(auth, ['secret']);
  const refund = await deps.store.refunds.findRefund(auth, refundId);
  if (refund === undefined) throw new ApiError('ERR_4007', 'No such refund exists for this account and mode.');
  return refund;
}
