import type { Scope } from '../../kernel/store-types';
import type { DisputeRecord } from '../../storage/disputes/records';
import type { FileRecord } from '../../storage/files/records';
import type { FileBlobStore } from '../../storage/files/store';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

export function disputeNotFound(fieldName?: string): ApiError {
  return new ApiError('ERR_4060', 'No such dispute exists for this account and mode.', fieldName === undefined ? {} : { fieldName });
}

export function fileNotFound(fieldName?: string): ApiError {
  return new ApiError('ERR_4061', 'No such file exists for this account and mode.', fieldName === undefined ? {} : { fieldName });
}

/** The dispute with this id in the caller's account and mode, or ERR_4060 (the message never repeats the id). */
export async function findDisputeOrThrow(store: Pick<Stores, 'disputes'>, scope: Scope, disputeId: string, fieldName?: string): Promise<DisputeRecord> {
  const dispute = await store.disputes.findDispute(scope, disputeId);
  if (dispute === undefined) throw disputeNotFound(fieldName);
  return dispute;
}

/** A file of the caller's account and mode that its owner has not deleted, or ERR_4061. */
export async function findLiveFileOrThrow(store: Pick<Stores, 'files'>, scope: Scope, fileId: string, fieldName?: string): Promise<FileRecord> {
  const file = await store.files.findFile(scope, fileId);
  if (file === undefined || file.deletedAt !== null) throw fileNotFound(fieldName);
  return file;
}

/** The store of file bytes (wired by compose.ts). */
export function fileBlobsOf(deps: CoreDeps): FileBlobStore {
  if (deps.fileBlobs === undefined) throw new Error('no file blob store is wired into the core deps');
  return deps.fileBlobs;
}

/**
 * Thrown where a write of a dispute's evidence lost to a concurrent one (the write is conditional on the evidence it
 * read): the work runs again on the dispute as it is now (retryWhileDisputeChanges).
 */
export class DisputeChanged extends Error {}

/** Each lost write means another request's write landed, so the loop always progresses; this only bounds it. */
const MAX_ROUNDS = 100;

/**
 * Runs `attempt`, which reads a dispute and writes its evidence conditionally on what it read, until it completes
 * without DisputeChanged: of concurrent evidence changes to one dispute, each keeps what the others wrote.
 */
export async function retryWhileDisputeChanges<T>(attempt: () => Promise<T>): Promise<T> {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof DisputeChanged)) throw error;
    }
  }
  throw new ApiError('ERR_4062', 'The dispute kept changing while this request was applied; retry.', { tryLater: true });
}

export function disputeStatusRefusal(dispute: DisputeRecord, operation: string): ApiError {
  return new ApiError('ERR_4062', `The dispute cannot ${operation} because it has status ${dispute.status}.`);
}
