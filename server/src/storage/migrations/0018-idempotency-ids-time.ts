import type { Kysely, Migration } from 'kysely';

/**
 * The instant that starts the ids an Idempotency-Key claim derives (kernel/ids.ts derivedIds), kept by the claim's
 * re-runs so that they derive the same ids. Null on claims stored before it: their re-runs derive ids as the
 * versions that stored them did.
 */
export const migration0018IdempotencyIdsTime: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('idempotency_keys').addColumn('ids_time', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('idempotency_keys').dropColumn('ids_time').execute();
  },
};
