import type { RefundResponse } from '../../../../protocol/api/refunds';
import type { RefundRecord } from '../../storage/refunds/records';

/** The refund object as the API returns it (the spec's Refund fields; Hyperswitch names). */
export function toRefundResponse(refund: RefundRecord): RefundResponse {
  return {
    refund_id: refund.refundId,
    payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    metadata: refund.metadata,
    error_message: refund.errorMessage,
    error_code: refund.errorCode,
    unified_code: refund.unifiedCode,
    unified_message: refund.unifiedMessage,
    created_at: refund.createdAt.toISOString(),
    updated_at: refund.updatedAt.toISOString(),
    profile_id: refund.profileId,
    connector: refund.connector,
    refund_type: refund.refundType,
  };
}
