import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * The recovery job pages through each listing of stuck objects by keyset (its order key, then the primary key), so
 * that objects a rail never answers about cannot hide the ones behind them (core/recovery/recover-stuck-objects.ts).
 * The partial indexes of pending refunds (0029), pending captures and payments whose hold is changing (0030) ended at
 * their order key: each page sorted its ties. Their replacements (`*_keyset_idx`) end with the primary key's columns.
 *
 * It also lists the payments with a change at the rail that their status does not show: a cancel after capture
 * (succeeded or partially captured) or an incremental authorization (requires_capture with something capturable)
 * asked of the rail and not yet recorded, which their railState marks. payments_rail_change_updated_idx holds only
 * them. The predicate is matched on the JSON text (rail_state is text on both engines); the store's query imports it
 * (listPaymentsRailChangingBefore, storage/payments/sql-store.ts), so that it is the index's word for word, which both
 * engines' plans show (storage/payments/indexes.test.ts).
 */
export const RAIL_CHANGE_MARKED = `rail_state like '%"cancel_post_capture_in_progress"%' or rail_state like '%"incremental_authorization_in_progress"%'`;

export const migration0034RecoveryKeyset: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // The new indexes are built first, under new names, and the old ones dropped last: on PostgreSQL the migration
    // runs in one transaction, and DROP INDEX holds an ACCESS EXCLUSIVE lock on its table (every read and write of
    // it waits) until the commit. Built before it, the indexes' scans run under CREATE INDEX's SHARE lock alone, which
    // blocks writes of the table but not reads (docs/operations.md, "Upgrades").
    await db.schema
      .createIndex('refunds_pending_keyset_idx')
      .on('refunds')
      .columns(['created_at', 'account_id', 'mode', 'refund_id'])
      .where(sql<SqlBool>`status = 'pending'`)
      .execute();
    await db.schema
      .createIndex('payment_captures_pending_keyset_idx')
      .on('payment_captures')
      .columns(['created_at', 'account_id', 'mode', 'capture_id'])
      .where(sql<SqlBool>`status = 'pending'`)
      .execute();
    await db.schema
      .createIndex('payments_hold_changing_keyset_idx')
      .on('payments')
      .columns(['updated_at', 'account_id', 'mode', 'payment_id'])
      .where(sql<SqlBool>`status = 'requires_capture' and amount_capturable = 0`)
      .execute();
    await db.schema
      .createIndex('payments_rail_change_updated_idx')
      .on('payments')
      .columns(['updated_at', 'account_id', 'mode', 'payment_id'])
      .where(sql.raw<SqlBool>(RAIL_CHANGE_MARKED))
      .execute();
    await db.schema.dropIndex('refunds_pending_created_idx').ifExists().execute();
    await db.schema.dropIndex('payment_captures_pending_created_idx').ifExists().execute();
    await db.schema.dropIndex('payments_hold_changing_updated_idx').ifExists().execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('payments_hold_changing_updated_idx')
      .on('payments')
      .columns(['updated_at'])
      .where(sql<SqlBool>`status = 'requires_capture' and amount_capturable = 0`)
      .execute();
    await db.schema.createIndex('payment_captures_pending_created_idx').on('payment_captures').columns(['created_at']).where(sql<SqlBool>`status = 'pending'`).execute();
    await db.schema.createIndex('refunds_pending_created_idx').on('refunds').columns(['created_at']).where(sql<SqlBool>`status = 'pending'`).execute();
    await db.schema.dropIndex('payments_rail_change_updated_idx').ifExists().execute();
    await db.schema.dropIndex('payments_hold_changing_keyset_idx').ifExists().execute();
    await db.schema.dropIndex('payment_captures_pending_keyset_idx').ifExists().execute();
    await db.schema.dropIndex('refunds_pending_keyset_idx').ifExists().execute();
  },
};
