import { sql, type Kysely, type Migration, type SqlBool } from 'kysely';

/**
 * Two refund reads sorted what they had read, because no index held their order (storage/refunds/indexes.test.ts
 * shows they sort no more):
 * - the recovery job lists pending refunds oldest first by created_at (an update of a pending refund's reason or
 *   metadata must not put its recovery off), but its index (0014) was (status, updated_at): every pending refund was
 *   read and sorted. refunds_pending_created_idx holds pending refunds only, in created_at order (partial, as the
 *   payment sweeps' indexes of 0017: a refund leaves it when it settles, so writes to settled refunds skip it);
 *   nothing else read refunds_status_updated_idx.
 * - the refund list pages newest first by (created_at, refund_id), but refunds_created_idx (0004) ends at created_at:
 *   each page sorted the ties. refunds_list_idx adds refund_id, as payments_list_idx has payment_id.
 * - a payment's answer embeds its latest refunds, newest first by (created_at, refund_id), read through
 *   refunds_payment_idx (0004), which ends at payment_id: every refund of the payment was read and sorted.
 *   refunds_payment_created_idx adds the order; it still leads with the foreign key's columns, which it serves.
 */
export const migration0029RefundIndexes: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('refunds_status_updated_idx').ifExists().execute();
    await db.schema
      .createIndex('refunds_pending_created_idx')
      .on('refunds')
      .columns(['created_at'])
      .where(sql<SqlBool>`status = 'pending'`)
      .execute();
    await db.schema.dropIndex('refunds_created_idx').ifExists().execute();
    await db.schema.createIndex('refunds_list_idx').on('refunds').columns(['account_id', 'mode', 'created_at', 'refund_id']).execute();
    await db.schema
      .createIndex('refunds_payment_created_idx')
      .on('refunds')
      .columns(['account_id', 'mode', 'payment_id', 'created_at', 'refund_id'])
      .execute();
    await db.schema.dropIndex('refunds_payment_idx').ifExists().execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('refunds_payment_idx').on('refunds').columns(['account_id', 'mode', 'payment_id']).execute();
    await db.schema.dropIndex('refunds_payment_created_idx').ifExists().execute();
    await db.schema.dropIndex('refunds_list_idx').ifExists().execute();
    await db.schema.createIndex('refunds_created_idx').on('refunds').columns(['account_id', 'mode', 'created_at']).execute();
    await db.schema.dropIndex('refunds_pending_created_idx').ifExists().execute();
    await db.schema.createIndex('refunds_status_updated_idx').on('refunds').columns(['status', 'updated_at']).execute();
  },
};
