import type { Kysely, Migration } from 'kysely';

/**
 * Crash recovery (docs/reliability.md). rail_ledger: the simulators' memory of what they answered per reference (an
 * attempt id, a refund id), so a payment left in processing by a crash can be asked about again. recovery_leases:
 * one instance at a time asks the rail about a stuck object.
 */
export const migration0014Recovery: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('rail_ledger')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('rail', 'text', (col) => col.notNull())
      .addColumn('operation', 'text', (col) => col.notNull())
      .addColumn('reference', 'text', (col) => col.notNull())
      .addColumn('answer', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('rail_ledger_pk', ['account_id', 'mode', 'rail', 'operation', 'reference'])
      .execute();
    await db.schema
      .createTable('recovery_leases')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('object_type', 'text', (col) => col.notNull())
      .addColumn('object_id', 'text', (col) => col.notNull())
      .addColumn('leased_until', 'text', (col) => col.notNull())
      .addPrimaryKeyConstraint('recovery_leases_pk', ['account_id', 'mode', 'object_type', 'object_id'])
      .execute();
    // The recovery job lists refunds in pending by age, as the sweep lists payments (0008).
    await db.schema.createIndex('refunds_status_updated_idx').on('refunds').columns(['status', 'updated_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('refunds_status_updated_idx').ifExists().execute();
    await db.schema.dropTable('recovery_leases').ifExists().execute();
    await db.schema.dropTable('rail_ledger').ifExists().execute();
  },
};
