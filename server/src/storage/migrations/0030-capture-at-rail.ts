import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * A capture is asked of the rail (docs/capture.md, "The rail"): its payment_captures row is written `pending` before
 * the call, then becomes `charged` or `failed`. A failed capture keeps the rail's error (error_code, error_message,
 * shown in expand_captures). The recovery job lists pending captures oldest first: a partial index holds only them,
 * so a capture leaves it when it settles.
 */
export const migration0030CaptureAtRail: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payment_captures').addColumn('error_code', 'text').execute();
    await db.schema.alterTable('payment_captures').addColumn('error_message', 'text').execute();
    await db.schema
      .createIndex('payment_captures_pending_created_idx')
      .on('payment_captures')
      .columns(['created_at'])
      .where(sql<SqlBool>`status = 'pending'`)
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payment_captures_pending_created_idx').ifExists().execute();
    await db.schema.alterTable('payment_captures').dropColumn('error_message').execute();
    await db.schema.alterTable('payment_captures').dropColumn('error_code').execute();
  },
};
