import type { Mode } from '../../../../protocol/ids';

export interface FilesTable {
  account_id: string;
  mode: Mode;
  file_id: string;
  dispute_id: string;
  purpose: 'dispute_evidence';
  content_type: string;
  size: number;
  file_name: string | null;
  submitted: number;
  deleted_at: string | null;
  created_at: string;
}

/** The bytes of files, on PostgreSQL (SQLite keeps them on disk beside the database). */
export interface FileBlobsTable {
  account_id: string;
  mode: Mode;
  file_id: string;
  bytes: Buffer;
  created_at: string;
}

/** The files tables, as storage/schema.ts composes them into the database. */
export interface FilesSchema {
  files: FilesTable;
  file_blobs: FileBlobsTable;
}
