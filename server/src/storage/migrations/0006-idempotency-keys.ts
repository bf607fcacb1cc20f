import type { Kysely, Migration } from 'kysely';

/**
 * Idempotency-Key store (api-conventions §5). One row per (account, mode, key kind, key): the claim while the first
 * request runs (status in_flight, claim_token, locked_at) and, once done, the stored response (status, the headers
 * that matter, body) with its expiry (at least 24 hours after the claim).
 */
export const migration0006IdempotencyKeys: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('key_kind', 'text', (col) => col.notNull())
      .addColumn('idempotency_key', 'text', (col) => col.notNull())
      .addColumn('request_fingerprint', 'text', (col) => col.notNull())
      .addColumn('request_method', 'text', (col) => col.notNull())
      .addColumn('request_path', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('claim_token', 'text', (col) => col.notNull())
      .addColumn('locked_at', 'text', (col) => col.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_headers', 'text')
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'mode', 'key_kind', 'idempotency_key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  },
};
