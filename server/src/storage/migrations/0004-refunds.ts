import type { Kysely, Migration } from 'kysely';

/**
 * Refunds (issue 3): the refunds table, and payments.amount_refunded, the sum of the payment's non-failed refunds.
 * Refund creation reserves its amount with a conditional update of that column on the payment row
 * (`amount_refunded + x <= amount_received`), so concurrent refunds can never together exceed the captured amount,
 * on SQLite and on PostgreSQL alike.
 */
export const migration0004Refunds: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('payments')
      .addColumn('amount_refunded', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('refunds')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('refund_id', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('profile_id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('reason', 'text')
      .addColumn('metadata', 'text')
      .addColumn('refund_type', 'text', (col) => col.notNull())
      .addColumn('rail', 'text')
      .addColumn('connector', 'text')
      .addColumn('rail_reference', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('unified_code', 'text')
      .addColumn('unified_message', 'text')
      .addColumn('request_fingerprint', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('refunds_pk', ['account_id', 'mode', 'refund_id'])
      .addForeignKeyConstraint('refunds_payment_fk', ['account_id', 'mode', 'payment_id'], 'payments', [
        'account_id',
        'mode',
        'payment_id',
      ])
      .execute();
    await db.schema.createIndex('refunds_created_idx').on('refunds').columns(['account_id', 'mode', 'created_at']).execute();
    await db.schema.createIndex('refunds_payment_idx').on('refunds').columns(['account_id', 'mode', 'payment_id']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('refunds').ifExists().execute();
    await db.schema.alterTable('payments').dropColumn('amount_refunded').execute();
  },
};
