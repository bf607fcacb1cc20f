import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * The outstanding renewals every renewal tick settles first (listOutstandingRenewals) are those of any status, since a
 * subscription paused or cancelled while its renewal was charged still owes its settlement: no status index finds
 * them. A partial index holds only the few subscriptions with a renewal outstanding, in the list's order.
 */
export const migration0028SubscriptionOutstandingRenewalIndex: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('subscriptions_outstanding_renewal_idx')
      .on('subscriptions')
      .columns(['account_id', 'mode', 'updated_at', 'subscription_id'])
      .where(sql<SqlBool>`renewal_payment_id is not null`)
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('subscriptions_outstanding_renewal_idx').ifExists().execute();
  },
};
