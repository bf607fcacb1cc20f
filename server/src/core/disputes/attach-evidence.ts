import type { EvidenceType } from '../../../../protocol/api/disputes';
import type { FileRecord } from '../../storage/files/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { DisputeChanged, disputeStatusRefusal, findDisputeOrThrow, retryWhileDisputeChanges } from './find-dispute';
import { decideDisputeTransition } from './dispute-transitions';
import { disputeFull, fileAdmission, orDiscard, requireEvidenceContent, type StagedFile } from './stage-upload';

export interface AttachEvidenceInput {
  disputeId: string;
  evidenceType: EvidenceType;
  file: StagedFile;
}

/**
 * PUT /disputes/evidence (secret key): the staged bytes become a file of the dispute and the evidence of
 * `evidenceType` (replacing an earlier one), while the dispute is open (ERR_4062 otherwise). The file and the
 * evidence (and on PostgreSQL the bytes) are written in one transaction, conditionally on the evidence read, so that
 * concurrent attaches each keep the others' (retryWhileDisputeChanges); a replaced file stays a file of the dispute
 * and counts towards its FILE_LIMITS.maxFilesPerDispute (ERR_4067). On any refusal the staged bytes are removed.
 */
export async function attachEvidence(deps: CoreDeps, auth: AuthContext, input: AttachEvidenceInput): Promise<FileRecord> {
  return orDiscard(deps, auth, input.file, () =>
    retryWhileDisputeChanges(async () => {
      const dispute = await findDisputeOrThrow(deps.store, auth, input.disputeId, 'dispute_id');
      const decision = decideDisputeTransition(dispute.status, 'attach_evidence');
      if (!decision.allowed) throw disputeStatusRefusal(dispute, 'take evidence');
      const contentType = requireEvidenceContent(input.file);
      const now = deps.clock.now();
      const file: FileRecord = {
        accountId: auth.accountId,
        mode: auth.mode,
        fileId: input.file.fileId,
        disputeId: dispute.disputeId,
        purpose: 'dispute_evidence',
        contentType,
        size: input.file.size,
        fileName: input.file.fileName,
        submitted: false,
        deletedAt: null,
        createdAt: now,
      };
      await deps.store.transaction(async (tx) => {
        const inserted = await tx.files.insertFile(file, input.file.pendingBytes, fileAdmission('attach_evidence'));
        if (inserted === 'dispute_full') throw disputeFull();
        if (inserted === 'dispute_status') throw new DisputeChanged();
        if (inserted === 'duplicate') throw new Error('generated file id already stored');
        const evidence = { ...dispute.evidence, [input.evidenceType]: file.fileId };
        // Lost to a concurrent change of the status or the evidence: the file's insert rolls back and the next round
        // reads the dispute again (and refuses for a status that takes no evidence).
        const updated = await tx.disputes.updateDispute(auth, dispute.disputeId, { status: decision.to, evidence, updatedAt: now }, [dispute.status], dispute.evidence);
        if (updated === undefined) throw new DisputeChanged();
      });
      return file;
    }),
  );
}
