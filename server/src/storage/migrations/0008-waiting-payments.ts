import type { Kysely, Migration } from 'kysely';

/**
 * The rail-sync sweep walks payments waiting for the customer in (updated_at, account_id, mode, payment_id) order
 * every few seconds; this index keeps that a range scan instead of a scan of every payment.
 */
export const migration0008WaitingPayments: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('payments_status_updated_idx')
      .on('payments')
      .columns(['status', 'updated_at', 'account_id', 'mode', 'payment_id'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payments_status_updated_idx').ifExists().execute();
  },
};
