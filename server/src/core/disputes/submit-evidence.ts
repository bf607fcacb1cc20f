import { EVIDENCE_TEXT_FIELDS, EVIDENCE_TYPES, type SubmitEvidenceRequest } from '../../../../protocol/api/disputes';
import type { DisputeRecord, Evidence } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { recordDisputeEvent } from './dispute-event';
import { decideDisputeTransition } from './dispute-transitions';
import { DisputeChanged, disputeStatusRefusal, fileNotFound, findDisputeOrThrow, findLiveFileOrThrow, retryWhileDisputeChanges } from './find-dispute';

/**
 * POST /disputes/evidence (secret key): merges the body's evidence fields into the dispute's (null clears one),
 * checks that every file field names a file of this dispute, and submits: the dispute becomes dispute_challenged,
 * its files are marked submitted (they stay with the dispute even if deleted later), and dispute_challenged is
 * written, all in one transaction, conditionally on the evidence read: an attach that lands meanwhile is submitted
 * too. The simulator rail takes the evidence as it is (docs/open-points.md).
 */
export async function submitEvidence(deps: CoreDeps, auth: AuthContext, body: SubmitEvidenceRequest): Promise<DisputeRecord> {
  return retryWhileDisputeChanges(async () => {
    const dispute = await findDisputeOrThrow(deps.store, auth, body.dispute_id, 'dispute_id');
    const decision = decideDisputeTransition(dispute.status, 'submit_evidence');
    if (!decision.allowed) throw disputeStatusRefusal(dispute, 'take evidence');

    const evidence: Evidence = { ...dispute.evidence };
    for (const field of [...EVIDENCE_TEXT_FIELDS, ...EVIDENCE_TYPES]) {
      const value = body[field];
      if (value === null) delete evidence[field];
      else if (value !== undefined) evidence[field] = value;
    }
    const fileIds: string[] = [];
    for (const field of EVIDENCE_TYPES) {
      const fileId = evidence[field];
      if (fileId === undefined) continue;
      const file = await findLiveFileOrThrow(deps.store, auth, fileId, field);
      if (file.disputeId !== dispute.disputeId) {
        throw new ApiError('ERR_4066', 'The file was uploaded for another dispute.', { fieldName: field });
      }
      fileIds.push(fileId);
    }

    const now = deps.clock.now();
    return deps.store.transaction(async (tx) => {
      // Lost to a concurrent change of the status or the evidence (an attach): read again and submit what is there now.
      const updated = await tx.disputes.updateDispute(
        auth,
        dispute.disputeId,
        { status: decision.to, evidence, evidenceSubmittedAt: now, updatedAt: now },
        [dispute.status],
        dispute.evidence,
      );
      if (updated === undefined) throw new DisputeChanged();
      // A file deleted by a concurrent DELETE /files after the checks above: nothing is submitted.
      const distinct = [...new Set(fileIds)];
      if ((await tx.files.markFilesSubmitted(auth, distinct)) !== distinct.length) throw fileNotFound();
      await recordDisputeEvent(deps, tx, updated, now);
      return updated;
    });
  });
}
