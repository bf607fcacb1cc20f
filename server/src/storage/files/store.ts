import type { InsertResult, Scope } from '../../kernel/store-types';
import type { FileRecord } from './records';

/** The metadata of files (transactional, in Stores). */
export interface FileStore {
  insertFile(file: FileRecord): Promise<InsertResult>;
  /** The file, deleted or not. */
  findFile(scope: Scope, fileId: string): Promise<FileRecord | undefined>;
  /** Marks the files as submitted evidence (they then stay with their dispute); answers how many were marked. */
  markFilesSubmitted(scope: Scope, fileIds: readonly string[]): Promise<number>;
  /** Hides a submitted file from its owner (kept with the dispute). */
  markFileDeleted(scope: Scope, fileId: string, at: Date): Promise<void>;
  /** Removes the metadata of a file that was never submitted; false when there was none to remove. */
  deleteUnsubmittedFile(scope: Scope, fileId: string): Promise<boolean>;
}

/** The files stores, as storage/stores.ts composes them into Stores. */
export interface FilesStores {
  files: FileStore;
}

/**
 * The FileStore port for bytes: where the content of uploaded files lives, so that every instance reads every file.
 * SQLite (one instance): files on disk under the data directory. PostgreSQL (several instances): the file_blobs
 * table. Not transactional with Stores: the core writes bytes first and metadata second, and removes the bytes when
 * the metadata could not be written.
 */
export interface FileBlobStore {
  /**
   * Stores the bytes read from `chunks` under the file's id and answers their number. When `chunks` throws (a size
   * limit, a truncated body) nothing is left behind and the error is rethrown.
   */
  writeBlob(scope: Scope, fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<number>;
  readBlob(scope: Scope, fileId: string): Promise<Uint8Array | undefined>;
  /** Removes the bytes (no error when there are none). */
  deleteBlob(scope: Scope, fileId: string): Promise<void>;
}
