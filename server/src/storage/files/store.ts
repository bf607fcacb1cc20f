import type { DisputeStatus } from '../../../../protocol/api/disputes';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { FileRecord } from './records';

/** What a dispute must be for a file to join it. */
export interface FileAdmission {
  /** The statuses in which the dispute takes files. */
  disputeStatuses: readonly DisputeStatus[];
  maxFilesPerDispute: number;
}

/** The metadata of files (transactional, in Stores). */
export interface FileStore {
  /**
   * Inserts the file's record and, when the blob store left the bytes to it (`StagedBlob.pendingBytes`: PostgreSQL),
   * their row, in one transaction (the caller's, or one of its own), unless the file's dispute is in none of
   * `admission.disputeStatuses` ('dispute_status') or already has `admission.maxFilesPerDispute` files
   * ('dispute_full'); both are read in the transaction, with the dispute's row held (of concurrent inserts for one
   * dispute, only those that fit succeed; none lands after a change of its status). A file already stored under this
   * id answers 'duplicate' first. A bytes' row under the id without its record (an earlier version's, left by a crash
   * between the two) is replaced, in the same transaction.
   */
  insertFile(file: FileRecord, pendingBytes: Uint8Array | null, admission: FileAdmission): Promise<InsertResult | 'dispute_full' | 'dispute_status'>;
  /** The file, deleted or not. */
  findFile(scope: Scope, fileId: string): Promise<FileRecord | undefined>;
  /** Those of `fileIds` that have a record, deleted or not (the orphan sweep). */
  findRecordedFileIds(scope: Scope, fileIds: readonly string[]): Promise<Set<string>>;
  /** Marks the files as submitted evidence (they then stay with their dispute); answers how many were marked. */
  markFilesSubmitted(scope: Scope, fileIds: readonly string[]): Promise<number>;
  /** Hides a submitted file from its owner (kept with the dispute). */
  markFileDeleted(scope: Scope, fileId: string, at: Date): Promise<void>;
  /**
   * Removes the metadata of a file that was never submitted, with its bytes' row where the database holds them;
   * false when there was none to remove.
   */
  deleteUnsubmittedFile(scope: Scope, fileId: string): Promise<boolean>;
}

/** The files stores, as storage/stores.ts composes them into Stores. */
export interface FilesStores {
  files: FileStore;
}

/** An upload's bytes, read and held for the record that will make them a file's. */
export interface StagedBlob {
  size: number;
  /**
   * The bytes, when they are written with the file's record, in its transaction (PostgreSQL: FileStore.insertFile);
   * null when the blob store wrote them already (on disk, synced).
   */
  pendingBytes: Uint8Array | null;
}

/**
 * The FileStore port for bytes: where the content of uploaded files lives, so that every instance reads every file.
 * SQLite (one instance): files on disk under the data directory, written and synced before the record commits
 * (bytes first, record second); a crash between the two leaves bytes without a record, which the orphan sweep
 * removes (core/disputes/sweep-orphan-blobs.ts). PostgreSQL (several instances): the file_blobs table, whose row is
 * written and deleted in the record's own transaction (FileStore), so nothing is ever left without a record (rows
 * that earlier versions left are swept, or replaced by the keyed re-run that derives their id).
 */
export interface FileBlobStore {
  /**
   * Reads the bytes of a new file from `chunks`. When `chunks` throws (a size limit, a truncated body) nothing is left
   * behind and the error is rethrown.
   */
  stageBlob(scope: Scope, fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<StagedBlob>;
  /** Removes staged bytes that did not become a file's. */
  discardStagedBlob(scope: Scope, fileId: string): Promise<void>;
  readBlob(scope: Scope, fileId: string): Promise<Uint8Array | undefined>;
  /** Removes the bytes of a file whose record was deleted (no error when there are none; none left on PostgreSQL). */
  deleteBlob(scope: Scope, fileId: string): Promise<void>;
  /**
   * The ids of the stored bytes that may have no record, in batches of one scope: every file on disk; on PostgreSQL
   * the rows without a record (left by versions that wrote them in a transaction of their own).
   */
  listBlobs(): AsyncIterable<{ scope: Scope; fileIds: string[] }>;
  /**
   * Removes the bytes of these files, and any partial write of them, last written before `before` (bytes of an upload
   * still on its way to its record are newer), judged and removed so that no upload's bytes land in between (a keyed
   * re-run writes over what its crashed first run left). Answers how many were removed.
   */
  deleteBlobsWrittenBefore(scope: Scope, fileIds: readonly string[], before: Date): Promise<number>;
}
