import type { Kysely, Migration } from 'kysely';

/**
 * Disputes and files (issue 13): disputes (evidence as a JSON object of field to text or file_id), the metadata of
 * uploaded files, and file_blobs, where PostgreSQL keeps the bytes so that every instance reads every file (SQLite
 * keeps them on disk under the data directory instead; the table stays empty there).
 */
export const migration0009Disputes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('disputes')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('dispute_id', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('profile_id', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('stage', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('reason', 'text')
      .addColumn('rail', 'text')
      .addColumn('connector', 'text')
      .addColumn('merchant_connector_id', 'text')
      .addColumn('evidence', 'text', (col) => col.notNull())
      .addColumn('evidence_submitted_at', 'text')
      .addColumn('challenge_required_by', 'text')
      .addColumn('is_already_refunded', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('disputes_pk', ['account_id', 'mode', 'dispute_id'])
      .addForeignKeyConstraint('disputes_payment_fk', ['account_id', 'mode', 'payment_id'], 'payments', ['account_id', 'mode', 'payment_id'])
      .execute();
    await db.schema.createIndex('disputes_created_idx').on('disputes').columns(['account_id', 'mode', 'created_at']).execute();
    await db.schema.createIndex('disputes_payment_idx').on('disputes').columns(['account_id', 'mode', 'payment_id']).execute();

    await db.schema
      .createTable('files')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('file_id', 'text', (col) => col.notNull())
      .addColumn('dispute_id', 'text', (col) => col.notNull())
      .addColumn('purpose', 'text', (col) => col.notNull())
      .addColumn('content_type', 'text', (col) => col.notNull())
      .addColumn('size', 'bigint', (col) => col.notNull())
      .addColumn('file_name', 'text')
      .addColumn('submitted', 'integer', (col) => col.notNull())
      .addColumn('deleted_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('files_pk', ['account_id', 'mode', 'file_id'])
      .addForeignKeyConstraint('files_dispute_fk', ['account_id', 'mode', 'dispute_id'], 'disputes', ['account_id', 'mode', 'dispute_id'])
      .execute();

    await db.schema
      .createTable('file_blobs')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('file_id', 'text', (col) => col.notNull())
      .addColumn('bytes', 'bytea', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('file_blobs_pk', ['account_id', 'mode', 'file_id'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('file_blobs').ifExists().execute();
    await db.schema.dropTable('files').ifExists().execute();
    await db.schema.dropTable('disputes').ifExists().execute();
  },
};
