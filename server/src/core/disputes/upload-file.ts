import type { FileRecord } from '../../storage/files/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { decideDisputeTransition } from './dispute-transitions';
import { disputeStatusRefusal, findDisputeOrThrow } from './find-dispute';
import { disputeFull, fileAdmission, fileOfFirstRun, orDiscard, requireEvidenceContent, type StagedFile } from './stage-upload';

export interface UploadFileInput {
  purpose: 'dispute_evidence';
  disputeId: string;
  file: StagedFile;
}

/**
 * POST /files (secret key): the staged bytes become a file of one of the account's disputes (ERR_4060 otherwise)
 * that still takes evidence (ERR_4062 once it is challenged, accepted, won or lost), with the content type detected
 * from its bytes, and at most FILE_LIMITS.maxFilesPerDispute files per dispute (ERR_4067). The record (and on
 * PostgreSQL the bytes) is written in one transaction, conditionally on the dispute's status then; on any refusal the
 * staged bytes are removed.
 */
export async function uploadFile(deps: CoreDeps, auth: AuthContext, input: UploadFileInput): Promise<FileRecord> {
  return orDiscard(deps, auth, input.file, async () => {
    const dispute = await findDisputeOrThrow(deps.store, auth, input.disputeId, 'dispute_id');
    if (!decideDisputeTransition(dispute.status, 'upload_file').allowed) {
      // A keyed re-run whose first run stored the file before the dispute moved on answers that file, as a replay would.
      const first = await deps.store.files.findFile(auth, input.file.fileId);
      if (first !== undefined) return first;
      throw disputeStatusRefusal(dispute, 'take files');
    }
    const contentType = requireEvidenceContent(input.file);
    const file: FileRecord = {
      accountId: auth.accountId,
      mode: auth.mode,
      fileId: input.file.fileId,
      disputeId: dispute.disputeId,
      purpose: input.purpose,
      contentType,
      size: input.file.size,
      fileName: input.file.fileName,
      submitted: false,
      deletedAt: null,
      createdAt: deps.clock.now(),
    };
    const inserted = await deps.store.files.insertFile(file, input.file.pendingBytes, fileAdmission('upload_file'));
    if (inserted === 'dispute_full') throw disputeFull();
    // The dispute moved on (submitted, accepted, decided) since it was read.
    if (inserted === 'dispute_status') throw disputeStatusRefusal(await findDisputeOrThrow(deps.store, auth, input.disputeId, 'dispute_id'), 'take files');
    if (inserted === 'duplicate') return fileOfFirstRun(deps, auth, input.file);
    return file;
  });
}
