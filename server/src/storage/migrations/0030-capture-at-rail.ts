import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * A capture is asked of the rail (docs/capture.md, "The rail"): its payment_captures row is written `pending` before
 * the call, then becomes `charged` or `failed`. A failed capture keeps the rail's error (error_code, error_message,
 * shown in expand_captures) and the reference of the request that asked for it (request_reference: a keyed re-run
 * answers from its capture instead of capturing again). The recovery job lists pending captures oldest first: a partial index holds only them,
 * so a capture leaves it when it settles. It also lists requires_capture payments with nothing capturable: only a
 * void, or a capture of all that was left, at the rail leaves one so (another partial index).
 */
export const migration0030CaptureAtRail: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payment_captures').addColumn('error_code', 'text').execute();
    await db.schema.alterTable('payment_captures').addColumn('error_message', 'text').execute();
    await db.schema.alterTable('payment_captures').addColumn('request_reference', 'text').execute();
    await db.schema
      .createIndex('payment_captures_pending_created_idx')
      .on('payment_captures')
      .columns(['created_at'])
      .where(sql<SqlBool>`status = 'pending'`)
      .execute();
    await db.schema
      .createIndex('payments_hold_changing_updated_idx')
      .on('payments')
      .columns(['updated_at'])
      .where(sql<SqlBool>`status = 'requires_capture' and amount_capturable = 0`)
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payments_hold_changing_updated_idx').ifExists().execute();
    await db.schema.dropIndex('payment_captures_pending_created_idx').ifExists().execute();
    await db.schema.alterTable('payment_captures').dropColumn('request_reference').execute();
    await db.schema.alterTable('payment_captures').dropColumn('error_message').execute();
    await db.schema.alterTable('payment_captures').dropColumn('error_code').execute();
  },
};
