import { FILE_LIMITS } from '../../../../protocol/api/disputes';
import type { FileRecord } from '../../storage/files/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findDisputeOrThrow } from './find-dispute';
import { disputeFull, fileOfFirstRun, orDiscard, requireEvidenceContent, type StagedFile } from './stage-upload';

export interface UploadFileInput {
  purpose: 'dispute_evidence';
  disputeId: string;
  file: StagedFile;
}

/**
 * POST /files (secret key): the staged bytes become a file of one of the account's disputes (ERR_4060 otherwise),
 * with the content type detected from its bytes, and at most FILE_LIMITS.maxFilesPerDispute files per dispute
 * (ERR_4067). The record (and on PostgreSQL the bytes) is written in one transaction; on any refusal the staged bytes
 * are removed.
 */
export async function uploadFile(deps: CoreDeps, auth: AuthContext, input: UploadFileInput): Promise<FileRecord> {
  return orDiscard(deps, auth, input.file, async () => {
    const dispute = await findDisputeOrThrow(deps.store, auth, input.disputeId, 'dispute_id');
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
    const inserted = await deps.store.files.insertFile(file, input.file.pendingBytes, FILE_LIMITS.maxFilesPerDispute);
    if (inserted === 'dispute_full') throw disputeFull();
    if (inserted === 'duplicate') return fileOfFirstRun(deps, auth, input.file);
    return file;
  });
}
