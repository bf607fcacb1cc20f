import { sql, type Selectable } from 'kysely';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { dateOrNull, type Db, insertResult, inScope, inTransaction, isPostgres, iso } from '../sql-rows';
import type { FileRecord } from './records';
import type { FilesTable } from './schema';
import type { FileAdmission, FileBlobStore, FilesStores, FileStore, StagedBlob } from './store';

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

  insertFile(file: FileRecord, pendingBytes: Uint8Array | null, admission: FileAdmission): Promise<InsertResult | 'dispute_full' | 'dispute_status'> {
    const scope = { accountId: file.accountId, mode: file.mode };
    return inTransaction(this.db, async (db) => {
      // Concurrent uploads for one dispute count one after the other, and a change of its status waits for them: the
      // dispute's row is held (PostgreSQL; SQLite runs one transaction at a time). NO KEY UPDATE, so the files'
      // foreign-key checks on it are not blocked.
      let disputeQuery = db.selectFrom('disputes').select('status').where(inScope(scope)).where('dispute_id', '=', file.disputeId);
      if (isPostgres(db)) disputeQuery = disputeQuery.forNoKeyUpdate();
      const dispute = await disputeQuery.executeTakeFirst();
      // A re-run of a keyed upload (its id derived) finds its own file before the status and the count.
      const existing = await db.selectFrom('files').select('file_id').where(inScope(scope)).where('file_id', '=', file.fileId).executeTakeFirst();
      if (existing !== undefined) return 'duplicate';
      if (dispute === undefined || !admission.disputeStatuses.includes(dispute.status)) return 'dispute_status';
      const { n } = await db
        .selectFrom('files')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where(inScope(scope))
        .where('dispute_id', '=', file.disputeId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= admission.maxFilesPerDispute) return 'dispute_full';
      const result = insertResult(
        await db
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
          .executeTakeFirst(),
      );
      if (result === 'inserted' && pendingBytes !== null) {
        // A row already under this id has no record (the id's record is the one just inserted): bytes an older version
        // wrote in a transaction of their own before a crash kept their record from committing, found again by the
        // keyed re-run that derives the same id. They are replaced, here, in the record's transaction. Deleted rather
        // than upserted: a sweep deleting the same row waits for this transaction, then finds it gone, and never sees
        // the new row (inserted after its statement began; deleteBlobsWrittenBefore).
        await db.deleteFrom('file_blobs').where(inScope(scope)).where('file_id', '=', file.fileId).execute();
        await db
          .insertInto('file_blobs')
          .values({ account_id: file.accountId, mode: file.mode, file_id: file.fileId, bytes: Buffer.from(pendingBytes.buffer, pendingBytes.byteOffset, pendingBytes.byteLength), created_at: iso(file.createdAt) })
          .execute();
      }
      return result;
    });
  }

  async findFile(scope: Scope, fileId: string): Promise<FileRecord | undefined> {
    const row = await this.db.selectFrom('files').selectAll().where(inScope(scope)).where('file_id', '=', fileId).executeTakeFirst();
    return row && toFile(row);
  }

  async findRecordedFileIds(scope: Scope, fileIds: readonly string[]): Promise<Set<string>> {
    if (fileIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('files').select('file_id').where(inScope(scope)).where('file_id', 'in', [...fileIds]).execute();
    return new Set(rows.map((row) => row.file_id));
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

  deleteUnsubmittedFile(scope: Scope, fileId: string): Promise<boolean> {
    return inTransaction(this.db, async (db) => {
      const result = await db.deleteFrom('files').where(inScope(scope)).where('file_id', '=', fileId).where('submitted', '=', 0).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      // The bytes' row goes with its record (PostgreSQL; SQLite keeps the bytes on disk and has no such row).
      if (isPostgres(db)) await db.deleteFrom('file_blobs').where(inScope(scope)).where('file_id', '=', fileId).execute();
      return true;
    });
  }
}

/** The files stores on one connection or transaction. */
export function filesSqlStores(db: Db): FilesStores {
  return { files: new SqlFileStore(db) };
}

/** Rows of file_blobs looked at per page by the orphan sweep. */
const SWEEP_PAGE = 500;

/** A file_blobs row without a record of its file. */
const withoutRecord = sql<boolean>`not exists (select 1 from files where files.account_id = file_blobs.account_id and files.mode = file_blobs.mode and files.file_id = file_blobs.file_id)`;

/**
 * File bytes in the file_blobs table (PostgreSQL: every instance reads every file). The chunks are gathered (the
 * core bounds their size) and written by FileStore.insertFile in the transaction of the file's record, so an upload
 * that fails, or a crash at any point, leaves no row without its record; deleting the record deletes the row too.
 * Rows without a record that earlier versions left are the orphan sweep's, or replaced by the keyed re-run that
 * derives their id (insertFile).
 */
export class SqlFileBlobStore implements FileBlobStore {
  constructor(private readonly db: Db) {}

  async stageBlob(_scope: Scope, _fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<StagedBlob> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of chunks) {
      parts.push(Buffer.from(chunk));
      size += chunk.byteLength;
    }
    return { size, pendingBytes: Buffer.concat(parts, size) };
  }

  async discardStagedBlob(): Promise<void> {
    // Staged bytes are only in memory until their record's transaction writes them.
  }

  async readBlob(scope: Scope, fileId: string): Promise<Uint8Array | undefined> {
    const row = await this.db.selectFrom('file_blobs').select('bytes').where(inScope(scope)).where('file_id', '=', fileId).executeTakeFirst();
    return row === undefined ? undefined : new Uint8Array(row.bytes);
  }

  async deleteBlob(): Promise<void> {
    // The row was deleted with its record (SqlFileStore.deleteUnsubmittedFile).
  }

  async *listBlobs(): AsyncIterable<{ scope: Scope; fileIds: string[] }> {
    let after: { account_id: string; mode: string; file_id: string } | undefined;
    for (;;) {
      let query = this.db.selectFrom('file_blobs').select(['account_id', 'mode', 'file_id']).where(withoutRecord);
      if (after !== undefined) query = query.where(sql<boolean>`(account_id, mode, file_id) > (${after.account_id}, ${after.mode}, ${after.file_id})`);
      const rows = await query.orderBy('account_id').orderBy('mode').orderBy('file_id').limit(SWEEP_PAGE).execute();
      const batches = new Map<string, { scope: Scope; fileIds: string[] }>();
      for (const row of rows) {
        const key = `${row.account_id} ${row.mode}`;
        const batch = batches.get(key) ?? { scope: { accountId: row.account_id, mode: row.mode }, fileIds: [] };
        batch.fileIds.push(row.file_id);
        batches.set(key, batch);
      }
      yield* batches.values();
      if (rows.length < SWEEP_PAGE) return;
      after = rows[rows.length - 1];
    }
  }

  async deleteBlobsWrittenBefore(scope: Scope, fileIds: readonly string[], before: Date): Promise<number> {
    if (fileIds.length === 0) return 0;
    const result = await this.db
      .deleteFrom('file_blobs')
      .where(inScope(scope))
      .where('file_id', 'in', [...fileIds])
      .where('created_at', '<', iso(before))
      .where(withoutRecord)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
