import type { Scope } from '../../kernel/store-types';
import type { RefundRecord } from '../../storage/refunds/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

export function refundNotFound(): ApiError {
  return new ApiError('ERR_4007', 'No such refund exists for this account and mode.');
}

/** The refund with this id in the caller's account and mode, or ERR_4007 (the message never repeats the id). */
export async function findRefundOrThrow(deps: CoreDeps, scope: Scope, refundId: string): Promise<RefundRecord> {
  const refund = await deps.store.refunds.findRefund(scope, refundId);
  if (refund === undefined) throw refundNotFound();
  return refund;
}
