import { PostgresAdapter, type Kysely, type Migration } from 'kysely';

/**
 * How an Idempotency-Key claim derives its ids (kernel/ids.ts IdsScheme), kept by the claim's re-runs as its ids
 * time is. Null on claims stored before it: their time started only payment and refund ids, so a key reused after
 * its expiry with the same request derived the first use's customer, collection, settlement... and answered those
 * (docs/idempotency.md). New claims store 2: the time is in every id they derive. On PostgreSQL the column's
 * default gives 2 to the claims the batch function (migration 0021) inserts without naming the column; it is added
 * without one first, so that the rows already there stay null.
 */
export const migration0026IdempotencyIdsScheme: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('idempotency_keys').addColumn('ids_scheme', 'integer').execute();
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await db.schema.alterTable('idempotency_keys').alterColumn('ids_scheme', (column) => column.setDefault(2)).execute();
    }
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('idempotency_keys').dropColumn('ids_scheme').execute();
  },
};
