import { EVIDENCE_TYPES } from '../../../../protocol/api/disputes';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { DisputeChanged, fileBlobsOf, findLiveFileOrThrow, retryWhileDisputeChanges } from './find-dispute';

/**
 * DELETE /files/{file_id} (secret key). A file already submitted as evidence stays with the dispute (spec): it is
 * hidden from its owner (GET and DELETE answer ERR_4061) and kept, bytes and all, in the dispute's evidence. Any
 * other file is removed: detached from its dispute's evidence and its record deleted in one transaction (with its
 * bytes on PostgreSQL), then its bytes on disk (SQLite). Once the record is gone the file is deleted, whatever
 * happens to the bytes: a failed removal is answered as a deletion (reported in `bytesLeft`), and the orphan sweep
 * removes the bytes later (sweep-orphan-blobs.ts).
 */
export async function deleteFile(deps: CoreDeps, auth: AuthContext, fileId: string): Promise<{ keptAsEvidence: boolean; bytesLeft?: unknown }> {
  const file = await findLiveFileOrThrow(deps.store, auth, fileId);
  const now = deps.clock.now();
  const removed = await retryWhileDisputeChanges(() =>
    deps.store.transaction(async (tx) => {
      // The dispute first, the file after it: a submit that commits between the two reads shows in the file (it is
      // submitted, so it stays), and one that commits after them changes the dispute's status, so the conditional
      // update below matches nothing and the next round finds the file submitted; a submit still running holds the
      // dispute row, and the update waits for it. Either way a submitted file never leaves its dispute's evidence, and
      // an attach that lands meanwhile is kept (the update is conditional on the evidence read too).
      const dispute = await tx.disputes.findDispute(auth, file.disputeId);
      const current = await tx.files.findFile(auth, fileId);
      if (current !== undefined && !current.submitted) {
        if (dispute !== undefined) {
          const evidence = { ...dispute.evidence };
          const attached = EVIDENCE_TYPES.filter((type) => evidence[type] === fileId);
          for (const type of attached) delete evidence[type];
          if (attached.length > 0 && (await tx.disputes.updateDispute(auth, dispute.disputeId, { evidence, updatedAt: now }, [dispute.status], dispute.evidence)) === undefined) {
            throw new DisputeChanged();
          }
        }
        if (await tx.files.deleteUnsubmittedFile(auth, fileId)) return true;
      }
      // Submitted (possibly by a concurrent submit): it stays with the dispute.
      await tx.files.markFileDeleted(auth, fileId, now);
      return false;
    }),
  );
  if (!removed) return { keptAsEvidence: true };
  try {
    await fileBlobsOf(deps).deleteBlob(auth, fileId);
    return { keptAsEvidence: false };
  } catch (error) {
    return { keptAsEvidence: false, bytesLeft: error };
  }
}
