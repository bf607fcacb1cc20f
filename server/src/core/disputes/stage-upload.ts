import { FILE_LIMITS } from '../../../../protocol/api/disputes';
import type { Scope } from '../../kernel/store-types';
import type { FileRecord } from '../../storage/files/records';
import type { FileAdmission } from '../../storage/files/store';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { statusesFiring } from '../shared/transition-table';
import { DISPUTE_TRANSITIONS } from './dispute-transitions';
import { fileBlobsOf } from './find-dispute';
import { detectContentType, SIGNATURE_BYTES } from './file-type';

/** The bytes of an upload, staged in the file store under a new file id, not yet a file of the account. */
export interface StagedFile {
  fileId: string;
  size: number;
  /** The bytes, when the file's record writes them (StagedBlob.pendingBytes); null when the blob store holds them. */
  pendingBytes: Uint8Array | null;
  /** Detected from the first bytes; null when no accepted signature matched. */
  contentType: string | null;
  fileName: string | null;
}

export function fileTooLarge(): ApiError {
  return new ApiError('ERR_2009', `The file is larger than the upload limit of ${FILE_LIMITS.maxFileBytes} bytes.`, { fieldName: 'file' });
}

/**
 * Streams an upload's bytes into the file store, counting them: beyond FILE_LIMITS.maxFileBytes the write is
 * aborted (the store leaves nothing behind) and ERR_2009 answers. The content type is detected from the first bytes.
 * The caller turns the staged bytes into a file (uploadFile, attachEvidence) or discards them.
 */
export async function stageUpload(deps: CoreDeps, scope: Scope, source: AsyncIterable<Uint8Array>, fileName: string | null): Promise<StagedFile> {
  const fileId = deps.ids.id('file');
  const head: number[] = [];
  let size = 0;
  async function* bounded(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > FILE_LIMITS.maxFileBytes) throw fileTooLarge();
      for (let i = 0; head.length < SIGNATURE_BYTES && i < chunk.byteLength; i++) head.push(chunk[i]!);
      yield chunk;
    }
  }
  const blob = await fileBlobsOf(deps).stageBlob(scope, fileId, bounded());
  return { fileId, size, pendingBytes: blob.pendingBytes, contentType: detectContentType(Uint8Array.from(head)), fileName };
}

/**
 * Removes staged bytes that did not become a file, best effort: the request answers what refused it, and bytes a
 * failed removal leaves are the orphan sweep's (sweep-orphan-blobs.ts).
 */
export async function discardStagedUpload(deps: CoreDeps, scope: Scope, staged: StagedFile): Promise<void> {
  try {
    // A keyed upload's re-run stages under its first run's id: bytes that a committed record names are that file's.
    if ((await deps.store.files.findFile(scope, staged.fileId)) !== undefined) return;
    await fileBlobsOf(deps).discardStagedBlob(scope, staged.fileId);
  } catch {
    // best effort (above)
  }
}

/** What a dispute must be for a file to join it through `trigger`: in a status the trigger fires from, with room. */
export function fileAdmission(trigger: 'upload_file' | 'attach_evidence'): FileAdmission {
  return { disputeStatuses: statusesFiring(DISPUTE_TRANSITIONS, trigger), maxFilesPerDispute: FILE_LIMITS.maxFilesPerDispute };
}

export function disputeFull(): ApiError {
  return new ApiError(
    'ERR_4067',
    `The dispute holds ${FILE_LIMITS.maxFilesPerDispute} files, as many as a dispute may; delete one it no longer needs (DELETE /files/{file_id}) first.`,
    { fieldName: 'dispute_id' },
  );
}

/** The staged bytes as a usable evidence file: not empty, of an accepted type (else 'File content type not found'). */
export function requireEvidenceContent(staged: StagedFile): string {
  if (staged.size === 0) throw new ApiError('ERR_2003', 'The file is empty.', { fieldName: 'file' });
  if (staged.contentType === null) throw new ApiError('ERR_4063', 'File content type not found', { fieldName: 'file' });
  return staged.contentType;
}

/**
 * The file a first run stored under the same id: an upload's id is derived from its Idempotency-Key and request
 * (kernel/ids.ts derivedIds), so a re-run after a crash that followed the first run's commit finds its record, and
 * answers it. Its staged bytes are the same bytes (the same request), written over the first run's: they are kept.
 * Any other duplicate id is a bug.
 */
export async function fileOfFirstRun(deps: CoreDeps, scope: Scope, staged: StagedFile): Promise<FileRecord> {
  const first = await deps.store.files.findFile(scope, staged.fileId);
  if (first === undefined) throw new Error('generated file id already stored');
  return first;
}

/** Runs `work`; when it fails, the staged bytes are removed before the error goes on (nothing half-written). */
export async function orDiscard<T>(deps: CoreDeps, scope: Scope, staged: StagedFile, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    await discardStagedUpload(deps, scope, staged);
    throw error;
  }
}
