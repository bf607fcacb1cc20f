/**
 * Records of the files store: the metadata of an uploaded file (its bytes live in a FileBlobStore: on disk beside
 * the SQLite database, or in the file_blobs table of PostgreSQL).
 */
import type { Scope } from '../../kernel/store-types';

export interface FileRecord extends Scope {
  fileId: string;
  /** The dispute the file was uploaded for (purpose dispute_evidence). */
  disputeId: string;
  purpose: 'dispute_evidence';
  /** Detected from the bytes at upload (never the declared part type). */
  contentType: string;
  size: number;
  /** The part's filename, as the client sent it (or null). */
  fileName: string | null;
  /** True once the file went to the rail as submitted evidence: it then stays with the dispute. */
  submitted: boolean;
  /** Set when the merchant deleted a submitted file: hidden from GET /files, kept with the dispute. */
  deletedAt: Date | null;
  createdAt: Date;
}
