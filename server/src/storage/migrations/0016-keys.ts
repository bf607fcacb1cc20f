import { sql, type Kysely, type Migration } from 'kysely';

/** The scopes every key had before scopes were stored: the 19 defaults of protocol/api/keys.ts at the time. */
const SCOPES_OF_EXISTING_KEYS = JSON.stringify([
  'payments:read', 'payments:write', 'refunds:read', 'refunds:write', 'customers:read', 'customers:write',
  'payment_methods:read', 'payment_methods:write', 'mandates:read', 'mandates:write', 'subscriptions:read',
  'subscriptions:write', 'disputes:read', 'disputes:write', 'events:read', 'events:write', 'collect:read',
  'collect:write', 'routing:write',
]);

/**
 * Key management and operator sessions (docs/keys.md): scopes on keys and the key a rotation replaced; the last TOTP
 * time step an operator used (a code is good once); operator sessions, stored by the hash of their token; the
 * security e-mail outbox, written in the transaction of the change it reports; invitations (one-time links, stored
 * by hash) and two-factor resets, which a second operator approves; webhook endpoints operators register per mode.
 */
export const migration0016Keys: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('api_keys')
      .addColumn('scopes', 'text', (col) => col.notNull().defaultTo(sql.lit(SCOPES_OF_EXISTING_KEYS)))
      .execute();
    await db.schema.alterTable('api_keys').addColumn('replaces_key_id', 'text').execute();
    await db.schema.alterTable('operators').addColumn('totp_last_step', 'integer').execute();
    // The bootstrap operator of earlier versions held api_keys:manage only; it gets the operator scopes that came
    // with this version (the settlement wallet, operators, webhook endpoints), and e-mails are matched lowercased.
    await sql`update operators set scopes = ${JSON.stringify(['api_keys:manage', 'collect:write', 'operators:manage', 'webhooks:manage'])} where scopes = ${JSON.stringify(['api_keys:manage'])}`.execute(db);
    await sql`update operators set email = lower(email)`.execute(db);
    await db.schema
      .createTable('operator_sessions')
      .addColumn('session_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('operator_id', 'text', (col) => col.notNull())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('verified_at', 'text')
      .addColumn('ended_at', 'text')
      .execute();
    await db.schema
      .createTable('security_emails')
      .addColumn('email_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('to_address', 'text', (col) => col.notNull())
      .addColumn('subject', 'text', (col) => col.notNull())
      .addColumn('body', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('next_attempt_at', 'text', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('sent_at', 'text')
      .addColumn('last_error', 'text')
      .execute();
    await db.schema
      .createTable('operator_invitations')
      .addColumn('invitation_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('email', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('token_hash', 'text', (col) => col.notNull().unique())
      .addColumn('invited_by', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('accepted_at', 'text')
      .execute();
    await db.schema
      .createTable('two_factor_resets')
      .addColumn('reset_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('operator_id', 'text', (col) => col.notNull())
      .addColumn('requested_by', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('approved_by', 'text')
      .addColumn('approved_at', 'text')
      .execute();
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('endpoint_id', 'text', (col) => col.notNull().unique())
      .addColumn('url', 'text', (col) => col.notNull())
      .addColumn('secret', 'text', (col) => col.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_until', 'text')
      .addColumn('enabled', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('webhook_endpoints_pk', ['account_id', 'mode'])
      .execute();
    await db.schema.createIndex('security_emails_due_idx').on('security_emails').columns(['sent_at', 'next_attempt_at']).execute();
    await db.schema.createIndex('api_keys_replaces_idx').on('api_keys').columns(['account_id', 'replaces_key_id', 'created_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('api_keys_replaces_idx').ifExists().execute();
    await db.schema.dropTable('webhook_endpoints').ifExists().execute();
    await db.schema.dropTable('two_factor_resets').ifExists().execute();
    await db.schema.dropTable('operator_invitations').ifExists().execute();
    await db.schema.dropTable('security_emails').ifExists().execute();
    await db.schema.dropTable('operator_sessions').ifExists().execute();
    await db.schema.alterTable('operators').dropColumn('totp_last_step').execute();
    await db.schema.alterTable('api_keys').dropColumn('replaces_key_id').execute();
    await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
  },
};
