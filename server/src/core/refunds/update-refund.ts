import type { UpdateRefundRequest } from '../../../../protocol/api/refunds';
import type { RefundPatch, RefundRecord } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findRefundOrThrow, refundNotFound } from './find-refund';

/**
 * POST /refunds/{refund_id} (secret key): sets reason and / or metadata (metadata is replaced as a whole, as in
 * Hyperswitch) in any status; the status and amounts never change here. An empty body returns the refund as is.
 */
export async function updateRefund(deps: CoreDeps, auth: AuthContext, refundId: string, body: UpdateRefundRequest): Promise<RefundRecord> {
  if (body.reason === undefined && body.metadata === undefined) return findRefundOrThrow(deps, auth, refundId);
  const patch: RefundPatch = { updatedAt: deps.clock.now() };
  if (body.reason !== undefined) patch.reason = body.reason;
  if (body.metadata !== undefined) patch.metadata = body.metadata;
  const updated = await deps.store.refunds.updateRefund(auth, refundId, patch);
  if (updated === undefined) throw refundNotFound();
  return updated;
}
