import type { Kysely, Migration } from 'kysely';

/**
 * Initial schema. Written with Kysely's schema builder and dialect-neutral types so the same migration runs on
 * SQLite and PostgreSQL. Later issues add their own numbered files (customers, refunds, idempotency keys, ...).
 */
export const migration0001Init: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('accounts')
      .addColumn('account_id', 'text', (col) => col.primaryKey())
      .addColumn('slug', 'text', (col) => col.notNull().unique())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('settings', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('business_profiles')
      .addColumn('profile_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('is_default', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addUniqueConstraint('business_profiles_account_name_unique', ['account_id', 'name'])
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('key_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('key_type', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('prefix', 'text', (col) => col.notNull())
      .addColumn('key_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('expires_at', 'text')
      .execute();
    await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'mode']).execute();

    await db.schema
      .createTable('operators')
      .addColumn('operator_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('email', 'text', (col) => col.notNull().unique())
      .addColumn('password_hash', 'text', (col) => col.notNull())
      .addColumn('totp_secret', 'text', (col) => col.notNull())
      .addColumn('scopes', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();

    await db.schema
      .createTable('payments')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('profile_id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('amount_capturable', 'bigint', (col) => col.notNull())
      .addColumn('amount_received', 'bigint')
      .addColumn('amount_to_capture', 'bigint')
      .addColumn('shipping_cost', 'bigint')
      .addColumn('order_tax_amount', 'bigint')
      .addColumn('capture_method', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text')
      .addColumn('description', 'text')
      .addColumn('return_url', 'text')
      .addColumn('setup_future_usage', 'text')
      .addColumn('payment_method', 'text')
      .addColumn('payment_method_type', 'text')
      .addColumn('payment_method_data', 'text')
      .addColumn('metadata', 'text')
      .addColumn('merchant_order_reference_id', 'text')
      .addColumn('client_secret', 'text', (col) => col.notNull())
      .addColumn('client_secret_expires_at', 'text', (col) => col.notNull())
      .addColumn('next_action', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('error_reason', 'text')
      .addColumn('rail', 'text')
      .addColumn('connector', 'text')
      .addColumn('rail_reference', 'text')
      .addColumn('rail_state', 'text')
      .addColumn('request_fingerprint', 'text', (col) => col.notNull())
      .addColumn('request_fields', 'text', (col) => col.notNull())
      .addColumn('version', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('payments_pk', ['account_id', 'mode', 'payment_id'])
      .execute();
    await db.schema
      .createIndex('payments_created_idx')
      .on('payments')
      .columns(['account_id', 'mode', 'created_at'])
      .execute();
    await db.schema
      .createIndex('payments_customer_idx')
      .on('payments')
      .columns(['account_id', 'mode', 'customer_id'])
      .execute();

    await db.schema
      .createTable('webhook_events')
      .addColumn('event_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('event_type', 'text', (col) => col.notNull())
      .addColumn('object_type', 'text', (col) => col.notNull())
      .addColumn('object_id', 'text', (col) => col.notNull())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('delivery_status', 'text', (col) => col.notNull())
      .addColumn('attempt_count', 'integer', (col) => col.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      // Each (object, event type) is sent once, as in Hyperswitch.
      .addUniqueConstraint('webhook_events_object_type_unique', ['account_id', 'mode', 'object_id', 'event_type'])
      .execute();
    await db.schema
      .createIndex('webhook_events_due_idx')
      .on('webhook_events')
      .columns(['delivery_status', 'next_attempt_at'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['webhook_events', 'payments', 'operators', 'api_keys', 'business_profiles', 'accounts']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
