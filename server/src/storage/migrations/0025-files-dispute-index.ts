import type { Kysely, Migration } from 'kysely';

/**
 * The files of one dispute, found without reading every file of the account: an upload counts its dispute's files
 * against FILE_LIMITS.maxFilesPerDispute in the transaction that inserts it.
 */
export const migration0025FilesDisputeIndex: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('files_dispute_idx').on('files').columns(['account_id', 'mode', 'dispute_id']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('files_dispute_idx').ifExists().execute();
  },
};
