import type { Kysely, Migration } from 'kysely';

/**
 * The Collect API (issue 15): collections, settlements, and one lock row per balance. The balance is never a stored
 * counter: it is summed from collections and settlements. The lock row is updated only by settlement requests, to
 * serialize the requests of one balance across instances (PostgreSQL row lock).
 */
export const migration0010Collect: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('collections')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('collection_id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('country', 'text', (col) => col.notNull())
      .addColumn('method', 'text', (col) => col.notNull())
      .addColumn('customer_reference', 'text', (col) => col.notNull())
      .addColumn('phone_number', 'text')
      .addColumn('instructions', 'text', (col) => col.notNull())
      .addColumn('plan', 'text', (col) => col.notNull())
      .addColumn('challenge', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('due_at', 'text')
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('received_at', 'text')
      .addColumn('credited_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('collections_pk', ['account_id', 'mode', 'collection_id'])
      .execute();
    await db.schema.createIndex('collections_due_idx').on('collections').column('due_at').execute();
    await db.schema.createIndex('collections_balance_idx').on('collections').columns(['account_id', 'mode', 'currency', 'status']).execute();

    await db.schema
      .createTable('settlements')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('settlement_id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('gross_amount', 'bigint', (col) => col.notNull())
      .addColumn('fee', 'bigint', (col) => col.notNull())
      .addColumn('rate', 'text', (col) => col.notNull())
      .addColumn('rate_minor_per_usdt', 'bigint', (col) => col.notNull())
      .addColumn('rate_time', 'text', (col) => col.notNull())
      .addColumn('net_usdt_micro', 'text', (col) => col.notNull())
      .addColumn('wallet_network', 'text', (col) => col.notNull())
      .addColumn('wallet_address', 'text', (col) => col.notNull())
      .addColumn('plan', 'text', (col) => col.notNull())
      .addColumn('onchain_reference', 'text')
      .addColumn('failure_reason', 'text')
      .addColumn('due_at', 'text')
      .addColumn('completed_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('settlements_pk', ['account_id', 'mode', 'settlement_id'])
      .execute();
    await db.schema.createIndex('settlements_due_idx').on('settlements').column('due_at').execute();
    await db.schema.createIndex('settlements_balance_idx').on('settlements').columns(['account_id', 'mode', 'currency', 'status']).execute();

    await db.schema
      .createTable('collect_balance_locks')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('version', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('collect_balance_locks_pk', ['account_id', 'mode', 'currency'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('collect_balance_locks').execute();
    await db.schema.dropTable('settlements').execute();
    await db.schema.dropTable('collections').execute();
  },
};
