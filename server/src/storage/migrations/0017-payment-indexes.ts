import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * Every payment write kept six B-trees up to date, and two of the indexes served only a few payments each: the
 * sweeps read processing and waiting payments, and the expiry sweep open authorizations. Those become partial (a
 * payment enters them only in those states; storage/payments/indexes.test.ts shows the sweeps still read them);
 * payments_created_idx goes, since payments_list_idx (account_id, mode, created_at, payment_id) starts with the
 * same columns; the customer index skips payments without a customer.
 */
export const migration0017PaymentIndexes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payments_created_idx').ifExists().execute();
    await db.schema.dropIndex('payments_status_updated_idx').ifExists().execute();
    await db.schema
      .createIndex('payments_status_updated_idx')
      .on('payments')
      .columns(['status', 'updated_at', 'account_id', 'mode', 'payment_id'])
      // An OR of equalities, not IN: SQLite proves that `status = 'processing'` implies an OR, not an IN list.
      .where(sql<SqlBool>`status = 'processing' or status = 'requires_customer_action'`)
      .execute();
    await db.schema.dropIndex('payments_authorization_expiry_idx').ifExists().execute();
    await db.schema
      .createIndex('payments_authorization_expiry_idx')
      .on('payments')
      .columns(['status', 'authorization_expires_at'])
      .where(sql<SqlBool>`authorization_expires_at is not null`)
      .execute();
    await db.schema.dropIndex('payments_customer_idx').ifExists().execute();
    await db.schema
      .createIndex('payments_customer_idx')
      .on('payments')
      .columns(['account_id', 'mode', 'customer_id'])
      .where(sql<SqlBool>`customer_id is not null`)
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('payments_customer_idx').ifExists().execute();
    await db.schema.createIndex('payments_customer_idx').on('payments').columns(['account_id', 'mode', 'customer_id']).execute();
    await db.schema.dropIndex('payments_authorization_expiry_idx').ifExists().execute();
    await db.schema.createIndex('payments_authorization_expiry_idx').on('payments').columns(['status', 'authorization_expires_at']).execute();
    await db.schema.dropIndex('payments_status_updated_idx').ifExists().execute();
    await db.schema.createIndex('payments_status_updated_idx').on('payments').columns(['status', 'updated_at', 'account_id', 'mode', 'payment_id']).execute();
    await db.schema.createIndex('payments_created_idx').on('payments').columns(['account_id', 'mode', 'created_at']).execute();
  },
};
