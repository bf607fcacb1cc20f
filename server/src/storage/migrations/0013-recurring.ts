import type { Kysely, Migration } from 'kysely';

/**
 * Recurring (issue 11): stored payment methods (a card's number only as vault ciphertext), saves waiting for their
 * payment's outcome, mandates, subscriptions (simulated billing processor), and on the payment the stored method and mandate it saved or was charged with.
 */
export const migration0013Recurring: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payments').addColumn('payment_method_id', 'text').execute();
    await db.schema.alterTable('payments').addColumn('mandate_id', 'text').execute();

    await db.schema
      .createTable('stored_payment_methods')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('payment_method_id', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text')
      .addColumn('payment_method', 'text', (col) => col.notNull())
      .addColumn('payment_method_type', 'text')
      .addColumn('payment_method_issuer', 'text')
      .addColumn('card', 'text')
      .addColumn('card_ciphertext', 'text')
      .addColumn('upi', 'text')
      .addColumn('wallet', 'text')
      .addColumn('bank_transfer', 'text')
      .addColumn('metadata', 'text')
      .addColumn('rail', 'text')
      .addColumn('recurring_enabled', 'integer', (col) => col.notNull())
      .addColumn('origin_payment_id', 'text')
      .addColumn('last_used_at', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('stored_payment_methods_pk', ['account_id', 'mode', 'payment_method_id'])
      .execute();
    await db.schema
      .createIndex('stored_payment_methods_customer_idx')
      .on('stored_payment_methods')
      .columns(['account_id', 'mode', 'customer_id', 'created_at'])
      .execute();

    await db.schema
      .createTable('pending_method_saves')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('instrument', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('pending_method_saves_pk', ['account_id', 'mode', 'payment_id'])
      .execute();

    await db.schema
      .createTable('mandates')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('mandate_id', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text', (col) => col.notNull())
      .addColumn('payment_method_id', 'text', (col) => col.notNull())
      .addColumn('payment_method', 'text', (col) => col.notNull())
      .addColumn('payment_method_type', 'text')
      .addColumn('card', 'text')
      .addColumn('customer_acceptance', 'text')
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('origin_payment_id', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addColumn('revoked_at', 'text')
      .addPrimaryKeyConstraint('mandates_pk', ['account_id', 'mode', 'mandate_id'])
      .execute();
    await db.schema.createIndex('mandates_created_idx').on('mandates').columns(['account_id', 'mode', 'created_at']).execute();
    await db.schema.createIndex('mandates_customer_idx').on('mandates').columns(['account_id', 'mode', 'customer_id']).execute();

    await db.schema
      .createTable('subscriptions')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('subscription_id', 'text', (col) => col.notNull())
      .addColumn('profile_id', 'text', (col) => col.notNull())
      .addColumn('customer_id', 'text', (col) => col.notNull())
      .addColumn('merchant_reference_id', 'text')
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('plan_id', 'text', (col) => col.notNull())
      .addColumn('item_price_id', 'text', (col) => col.notNull())
      .addColumn('coupon_code', 'text')
      .addColumn('amount', 'bigint', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('client_secret', 'text', (col) => col.notNull())
      .addColumn('last_payment_id', 'text')
      .addColumn('mandate_id', 'text')
      .addColumn('billing', 'text')
      .addColumn('shipping', 'text')
      .addColumn('description', 'text')
      .addColumn('scheduled_change', 'text')
      .addColumn('next_billing_at', 'text')
      .addColumn('paused_at', 'text')
      .addColumn('cancelled_at', 'text')
      .addColumn('version', 'integer', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('updated_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('subscriptions_pk', ['account_id', 'mode', 'subscription_id'])
      .execute();
    await db.schema.createIndex('subscriptions_profile_idx').on('subscriptions').columns(['account_id', 'mode', 'profile_id', 'created_at']).execute();
    await db.schema.createIndex('subscriptions_due_idx').on('subscriptions').columns(['account_id', 'mode', 'status', 'next_billing_at']).execute();
  },
};
