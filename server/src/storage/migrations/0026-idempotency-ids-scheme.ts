import { PostgresAdapter, type Kysely, type Migration } from 'kysely';
import { createIdempotencyBatchFunction } from './0021-idempotency-batch-function';

/**
 * How an Idempotency-Key claim derives its ids (kernel/ids.ts IdsScheme), kept by the claim's re-runs as its ids
 * time is. Null on claims stored before it: their time started only payment and refund ids, so a key reused after
 * its expiry with the same request derived the first use's customer, collection, settlement... and answered those
 * (docs/idempotency.md). New claims store 2: the time is in every id they derive. The column has no default, and
 * the PostgreSQL batch function writes each claim's own value: an instance of an earlier version still running in a
 * rolling deploy writes null, as it derived its ids. (A claim of this version re-run by such an instance after a
 * crash is still derived the old way; a deploy that overlaps versions should drain their requests first.)
 */
export const migration0026IdempotencyIdsScheme: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('idempotency_keys').addColumn('ids_scheme', 'integer').execute();
    if (db.getExecutor().adapter instanceof PostgresAdapter) await createIdempotencyBatchFunction(db, { idsScheme: true });
  },

  async down(db: Kysely<unknown>): Promise<void> {
    if (db.getExecutor().adapter instanceof PostgresAdapter) await createIdempotencyBatchFunction(db, { idsScheme: false });
    await db.schema.alterTable('idempotency_keys').dropColumn('ids_scheme').execute();
  },
};
