import type { Kysely, Migration } from 'kysely';

/**
 * Manual capture (issue 12): on the payment, when its authorization was granted and until when it can be captured;
 * payment_captures: one row per capture of a manual-capture payment (amount, sequence), so expand_captures lists them.
 */
export const migration0015Capture: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payments').addColumn('authorized_at', 'text').execute();
    await db.schema.alterTable('payments').addColumn('authorization_expires_at', 'text').execute();

    await db.schema
      .createTable('payment_captures')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('capture_id', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('attempt_id', 'text', (col) => col.notNull())
      .addColumn('capture_sequence', 'integer', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('connector', 'text')
      .addColumn('connector_capture_id', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('payment_captures_pk', ['account_id', 'mode', 'capture_id'])
      .addUniqueConstraint('payment_captures_sequence_uq', ['account_id', 'mode', 'payment_id', 'capture_sequence'])
      .execute();
    // The expiry sweep lists open authorizations by expiry, across accounts.
    await db.schema.createIndex('payments_authorization_expiry_idx').on('payments').columns(['status', 'authorization_expires_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payments_authorization_expiry_idx').ifExists().execute();
    await db.schema.dropTable('payment_captures').ifExists().execute();
    await db.schema.alterTable('payments').dropColumn('authorization_expires_at').execute();
    await db.schema.alterTable('payments').dropColumn('authorized_at').execute();
  },
};
