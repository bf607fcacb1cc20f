import type { Kysely, Migration } from 'kysely';

/**
 * The rate-limit buckets every instance on the database shares (storage/rate-limits/schema.ts): the surfaces whose
 * limits guard secrets (sign-in, two-factor codes, failed authentications) were counted in each process, so N
 * instances let a stranger N times the limit. Keyed by the bucket's name; the index on the full-again instant serves
 * the housekeeping delete of the buckets that are full again.
 */
export const migration0032RateLimitBuckets: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('rate_limit_buckets')
      .addColumn('bucket', 'text', (col) => col.primaryKey())
      .addColumn('full_at_ms', 'double precision', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('rate_limit_buckets_full_at_idx').on('rate_limit_buckets').columns(['full_at_ms']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('rate_limit_buckets').ifExists().execute();
  },
};
