import type { DisputeResponse } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';

/** The dispute object as the API returns it (spec "Dispute" fields; amount as a string of minor units). */
export function toDisputeResponse(dispute: DisputeRecord): DisputeResponse {
  return {
    dispute_id: dispute.disputeId,
    payment_id: dispute.paymentId,
    amount: String(dispute.amount),
    currency: dispute.currency,
    dispute_stage: dispute.stage,
    dispute_status: dispute.status,
    connector: dispute.connector,
    connector_reason: dispute.reason,
    challenge_required_by: dispute.challengeRequiredBy?.toISOString() ?? null,
    created_at: dispute.createdAt.toISOString(),
    updated_at: dispute.updatedAt.toISOString(),
    evidence_submitted_at: dispute.evidenceSubmittedAt?.toISOString() ?? null,
    profile_id: dispute.profileId,
    merchant_connector_id: dispute.merchantConnectorId,
    is_already_refunded: dispute.isAlreadyRefunded,
  };
}
