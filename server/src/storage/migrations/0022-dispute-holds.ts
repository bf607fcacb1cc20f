import { sql, type Kysely, type Migration } from 'kysely';

/**
 * payments.amount_disputed: the sum of the payment's disputes that hold money (opened, challenged, lost, accepted).
 * A dispute is raised with a conditional update of it on the payment row (`amount_refunded + amount_disputed + x <=
 * amount_received`), and a refund reserves its amount under the same sum, so disputes and refunds together never take
 * more than was captured, on SQLite and on PostgreSQL alike. Filled from the disputes already stored.
 */
export const migration0022DisputeHolds: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('payments')
      .addColumn('amount_disputed', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
    // The statuses of DISPUTE_STATUSES_HOLDING_FUNDS (core/disputes/dispute-transitions.ts) when this was written.
    await sql`update payments set amount_disputed = (
        select coalesce(sum(d.amount), 0) from disputes d
        where d.account_id = payments.account_id and d.mode = payments.mode and d.payment_id = payments.payment_id
          and d.status in ('dispute_opened', 'dispute_challenged', 'dispute_lost', 'dispute_accepted'))
      where exists (
        select 1 from disputes d
        where d.account_id = payments.account_id and d.mode = payments.mode and d.payment_id = payments.payment_id)`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payments').dropColumn('amount_disputed').execute();
  },
};
