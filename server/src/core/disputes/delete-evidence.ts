import type { DeleteEvidenceRequest } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { DisputeChanged, disputeStatusRefusal, findDisputeOrThrow, retryWhileDisputeChanges } from './find-dispute';
import { decideDisputeTransition } from './dispute-transitions';

/**
 * DELETE /disputes/evidence (secret key): detaches the evidence of one type before submission (spec: "Evidence can
 * be detached before submission"; ERR_4062 after). The file itself stays a file of the dispute (DELETE /files
 * removes it). Nothing attached of that type: ERR_4065.
 */
export async function deleteEvidence(deps: CoreDeps, auth: AuthContext, body: DeleteEvidenceRequest): Promise<DisputeRecord> {
  return retryWhileDisputeChanges(async () => {
    const dispute = await findDisputeOrThrow(deps.store, auth, body.dispute_id, 'dispute_id');
    const decision = decideDisputeTransition(dispute.status, 'delete_evidence');
    if (!decision.allowed) throw disputeStatusRefusal(dispute, 'drop evidence');
    if (dispute.evidence[body.evidence_type] === undefined) {
      throw new ApiError('ERR_4065', 'No evidence of this type is attached to the dispute.', { fieldName: 'evidence_type' });
    }
    const { [body.evidence_type]: _removed, ...evidence } = dispute.evidence;
    const patch = { status: decision.to, evidence, updatedAt: deps.clock.now() };
    const updated = await deps.store.disputes.updateDispute(auth, dispute.disputeId, patch, [dispute.status], dispute.evidence);
    if (updated === undefined) throw new DisputeChanged();
    return updated;
  });
}
