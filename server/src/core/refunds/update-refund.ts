import type { UpdateRefundRequest } from '../../../../protocol/api/refunds';
import type { RefundPatch, RefundRecord } from '../../storage/refunds/records';
import { requireKeyKind } from '../auth/auth';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * POST /refunds/{refund_id} (secret key): sets reason and / or metadata (metadata is replaced as a whole, as in
 * Hyperswitch) in any status; the status and amounts never change here. An empty body returns the refund as is.
 */
export async function updateRefund(deps: CoreDeps, auth: AuthContext, refundId: string, body: UpdateRefundRequest): Promise<RefundRecord> {
  requireKeyKind(auth, ['secret']);
  const notFound = () => new ApiError('ERR_4007', 'No such refund exists for this account and mode.');
  if (body.reason === undefined && body.metadata === undefined) {
    const refund = await deps.store.refunds.findRefund(auth, refundId);
    if (refund === undefined) throw notFound();
    return refund;
  }
  const patch: RefundPatch = { updatedAt: deps.clock.now() };
  if (body.reason !== undefined) patch.reason = body.reason;
  if (body.metadata !== undefined) patch.metadata = body.metadata;
  const updated = await deps.store.refunds.updateRefund(auth, refundId, patch);
  if (updated === undefined) throw notFound();
  return updated;
}
