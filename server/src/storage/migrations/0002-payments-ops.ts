import type { Kysely, Migration } from 'kysely';

/**
 * Payments operations (issue 3): one row per confirm of a payment (payment_attempts, behind expand_attempts,
 * expand_captures and poll status), the cancellation reason on the payment, and the index the payments list
 * pages on (newest first, payment_id breaking ties between equal created timestamps).
 */
export const migration0002PaymentsOps: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payments').addColumn('cancellation_reason', 'text').execute();
    await db.schema
      .createIndex('payments_list_idx')
      .on('payments')
      .columns(['account_id', 'mode', 'created_at', 'payment_id'])
      .execute();

    await db.schema
      .createTable('payment_attempts')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('attempt_id', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('attempt_number', 'integer', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('payment_method', 'text')
      .addColumn('payment_method_type', 'text')
      .addColumn('capture_method', 'text', (col) => col.notNull())
      .addColumn('connector', 'text')
      .addColumn('reference_id', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('error_reason', 'text')
      .addColumn('poll_id', 'text')
      .addColumn('cancellation_reason', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('payment_attempts_pk', ['account_id', 'mode', 'attempt_id'])
      .addUniqueConstraint('payment_attempts_number_unique', ['account_id', 'mode', 'payment_id', 'attempt_number'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('payment_attempts').ifExists().execute();
    await db.schema.dropIndex('payments_list_idx').ifExists().execute();
    await db.schema.alterTable('payments').dropColumn('cancellation_reason').execute();
  },
};
