import type { Selectable } from 'kysely';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { dateOrNull, type Db, insertResult, inScope, iso } from '../sql-rows';
import type { FileRecord } from './records';
import type { FilesTable } from './schema';
import type { FileBlobStore, FilesStores, FileStore } from './store';

function toFile(row: Selectable<FilesTable>): FileRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    fileId: row.file_id,
    disputeId: row.dispute_id,
    purpose: row.purpose,
    contentType: row.content_type,
    size: Number(row.size),
    fileName: row.file_name,
    submitted: Number(row.submitted) === 1,
    deletedAt: dateOrNull(row.deleted_at),
    createdAt: new Date(row.created_at),
  };
}

/** The Kysely implementation of FileStore, on SQLite or PostgreSQL. */
export class SqlFileStore implements FileStore {
  constructor(private readonly db: Db) {}

  async insertFile(file: FileRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('files')
      .values({
        account_id: file.accountId,
        mode: file.mode,
        file_id: file.fileId,
        dispute_id: file.disputeId,
        purpose: file.purpose,
        content_type: file.contentType,
        size: file.size,
        file_name: file.fileName,
        submitted: file.submitted ? 1 : 0,
        deleted_at: file.deletedAt === null ? null : iso(file.deletedAt),
        created_at: iso(file.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findFile(scope: Scope, fileId: string): Promise<FileRecord | undefined> {
    const row = await this.db.selectFrom('files').selectAll().where(inScope(scope)).where('file_id', '=', fileId).executeTakeFirst();
    return row && toFile(row);
  }

  async markFilesSubmitted(scope: Scope, fileIds: readonly string[]): Promise<number> {
    if (fileIds.length === 0) return 0;
    const result = await this.db
      .updateTable('files')
      .set({ submitted: 1 })
      .where(inScope(scope))
      .where('file_id', 'in', [...fileIds])
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async markFileDeleted(scope: Scope, fileId: string, at: Date): Promise<void> {
    await this.db.updateTable('files').set({ deleted_at: iso(at) }).where(inScope(scope)).where('file_id', '=', fileId).execute();
  }

  async deleteUnsubmittedFile(scope: Scope, fileId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('files')
      .where(inScope(scope))
      .where('file_id', '=', fileId)
      .where('submitted', '=', 0)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

/** The files stores on one connection or transaction. */
export function filesSqlStores(db: Db): FilesStores {
  return { files: new SqlFileStore(db) };
}

/**
 * File bytes in the file_blobs table (PostgreSQL: every instance reads every file). The chunks are gathered (the
 * core bounds their size) and written in one INSERT, so a failed upload leaves no row.
 */
export class SqlFileBlobStore implements FileBlobStore {
  constructor(private readonly db: Db) {}

  async writeBlob(scope: Scope, fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of chunks) {
      parts.push(Buffer.from(chunk));
      size += chunk.byteLength;
    }
    await this.db
      .insertInto('file_blobs')
      .values({ account_id: scope.accountId, mode: scope.mode, file_id: fileId, bytes: Buffer.concat(parts, size), created_at: iso(new Date()) })
      .execute();
    return size;
  }

  async readBlob(scope: Scope, fileId: string): Promise<Uint8Array | undefined> {
    const row = await this.db.selectFrom('file_blobs').select('bytes').where(inScope(scope)).where('file_id', '=', fileId).executeTakeFirst();
    return row === undefined ? undefined : new Uint8Array(row.bytes);
  }

  async deleteBlob(scope: Scope, fileId: string): Promise<void> {
    await this.db.deleteFrom('file_blobs').where(inScope(scope)).where('file_id', '=', fileId).execute();
  }
}
