import type { Kysely, Migration } from 'kysely';

/**
 * The API key that created an ephemeral key: the ephemeral key authenticates only while that key is usable
 * (core/auth/ephemeral-auth.ts). Null on keys created before this migration, whose issuer is not known: they keep
 * their own expiry, at most one hour (docs/open-points.md).
 */
export const migration0023EphemeralKeyIssuer: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('ephemeral_keys').addColumn('issuer_key_id', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('ephemeral_keys').dropColumn('issuer_key_id').execute();
  },
};
