import type { Kysely, Migration } from 'kysely';

/**
 * Customers (with tombstones for deleted ones) and the ephemeral keys that scope a browser to one customer.
 * Dialect-neutral types, as in 0001-init.
 */
export const migration0003Customers: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('customers')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text', (col) => col.notNull())
      .addColumn('name', 'text')
      .addColumn('email', 'text')
      .addColumn('phone', 'text')
      .addColumn('phone_country_code', 'text')
      .addColumn('description', 'text')
      .addColumn('address', 'text')
      .addColumn('metadata', 'text')
      .addColumn('tax_registration_id', 'text')
      .addColumn('document_details', 'text')
      .addColumn('default_payment_method_id', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addColumn('deleted_at', 'text')
      .addPrimaryKeyConstraint('customers_pk', ['account_id', 'mode', 'customer_id'])
      .execute();
    await db.schema
      .createIndex('customers_list_idx')
      .on('customers')
      .columns(['account_id', 'mode', 'created_at'])
      .execute();

    await db.schema
      .createTable('ephemeral_keys')
      .addColumn('key_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text', (col) => col.notNull())
      .addColumn('secret_hash', 'text', (col) => col.notNull().unique())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .execute();
    await db.schema
      .createIndex('ephemeral_keys_customer_idx')
      .on('ephemeral_keys')
      .columns(['account_id', 'mode', 'customer_id'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('ephemeral_keys').ifExists().execute();
    await db.schema.dropTable('customers').ifExists().execute();
  },
};
