import { EVIDENCE_TYPES, type EvidenceBlock } from '../../../../protocol/api/disputes';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findDisputeOrThrow } from './find-dispute';

/**
 * GET /disputes/evidence/{dispute_id} (secret key): one block per file of the dispute's evidence (Hyperswitch
 * DisputeEvidenceBlock), in the order of the evidence types. A submitted file stays listed after its owner deleted it.
 */
export async function retrieveEvidence(deps: CoreDeps, auth: AuthContext, disputeId: string): Promise<EvidenceBlock[]> {
  const dispute = await findDisputeOrThrow(deps.store, auth, disputeId);
  const blocks: EvidenceBlock[] = [];
  for (const evidenceType of EVIDENCE_TYPES) {
    const fileId = dispute.evidence[evidenceType];
    if (fileId === undefined) continue;
    const file = await deps.store.files.findFile(auth, fileId);
    if (file === undefined) continue;
    blocks.push({
      evidence_type: evidenceType,
      file_metadata_response: {
        file_id: file.fileId,
        file_name: file.fileName,
        file_size: file.size,
        file_type: file.contentType,
        available: file.deletedAt === null || file.submitted,
      },
    });
  }
  return blocks;
}
