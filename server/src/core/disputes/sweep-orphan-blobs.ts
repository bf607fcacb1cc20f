import type { CoreDeps } from '../shared/deps';

/**
 * How old stored bytes without a record must be before the sweep removes them: far beyond any upload still on its
 * way from its bytes to its record (a request is cut off after Node's 5-minute requestTimeout).
 */
export const ORPHAN_BLOB_AGE_MS = 60 * 60_000;

/**
 * The orphan sweep (start.ts: at start, then hourly): removes stored bytes that no file record names, written more
 * than ORPHAN_BLOB_AGE_MS ago. On SQLite they are what a crash between an upload's bytes and its record leaves, or a
 * removal that failed after a deletion; on PostgreSQL bytes and record share a transaction, and only rows written by
 * earlier versions can be left. One look-up of records per batch of ids; answers how many were removed.
 */
export async function sweepOrphanBlobs(deps: Pick<CoreDeps, 'store' | 'clock' | 'fileBlobs'>): Promise<number> {
  const blobs = deps.fileBlobs;
  if (blobs === undefined) return 0;
  const before = new Date(deps.clock.now().getTime() - ORPHAN_BLOB_AGE_MS);
  let removed = 0;
  for await (const { scope, fileIds } of blobs.listBlobs()) {
    const recorded = await deps.store.files.findRecordedFileIds(scope, fileIds);
    const orphans = fileIds.filter((fileId) => !recorded.has(fileId));
    if (orphans.length > 0) removed += await blobs.deleteBlobsWrittenBefore(scope, orphans, before);
  }
  return removed;
}
