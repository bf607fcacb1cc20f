import type { Kysely, Migration } from 'kysely';

/**
 * The start of the period a renewal's claim bills, stored with the claim (renewal_payment_id) and cleared with it: the
 * period a later tick settles is the one claimed, whatever changed on the subscription meanwhile (a plan change, a
 * resume). It was derived back from next_billing_at and the current price, so a refusal after a plan change put
 * next_billing_at back by the new plan's length. Null when no renewal is outstanding, and on claims made before it.
 */
export const migration0031SubscriptionRenewalPeriod: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').addColumn('renewal_period_start', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').dropColumn('renewal_period_start').execute();
  },
};
