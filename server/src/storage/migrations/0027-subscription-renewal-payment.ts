import type { Kysely, Migration } from 'kysely';

/**
 * The renewal payment a subscription's period was claimed for, until its outcome is applied to the subscription:
 * a renewal the rail has not decided (no answer, waiting) is settled by a later renewal tick from its payment,
 * instead of being left active with the period unbilled and nobody told. Null when no renewal is outstanding.
 */
export const migration0027SubscriptionRenewalPayment: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').addColumn('renewal_payment_id', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').dropColumn('renewal_payment_id').execute();
  },
};
