import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The Collect balance becomes stored per (account, mode, currency): available, pending and held, in minor units.
 * Until now every balance read and every settlement request summed all the account's collections and settlements by
 * status, the request while holding the balance's lock row: a cost that grew with the account's history and that
 * every settlement of the balance waited behind.
 *
 * Two tables, so that no row is updated by every credit (a hot row that would queue all of a merchant's collection
 * steps behind each other and behind its settlements on PostgreSQL):
 * - collect_balance_deltas: each status change that moves money inserts what it moved (core/collect/collect-money.ts)
 *   in its own transaction, keyed by the object's id and the status it reached; inserts never wait on each other.
 * - collect_balances: the deltas folded so far. A fold (a settlement request, the background sweep) locks the row,
 *   adds the deltas it deletes and nothing else; a settlement request folds, then checks and debits. A balance read
 *   is the row plus its deltas, in one statement. The row is the settlement lock, so collect_balance_locks goes, and
 *   so do the two indexes that served the sums.
 *
 * The rows are filled from the collections and settlements as they are (no deltas), with the shares of
 * collect-money.ts written out here (a migration keeps what it did when the core changes): available = credited
 * collections - settlements processing or completed; pending = collections received; held = settlements processing.
 *
 * No foreign key to accounts (0020: account_id is the caller's, and the key's check locked the accounts row).
 */
export const migration0033CollectBalances: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('collect_balances')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('available', 'bigint', (col) => col.notNull())
      .addColumn('pending', 'bigint', (col) => col.notNull())
      .addColumn('held', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('collect_balances_pk', ['account_id', 'mode', 'currency'])
      .execute();
    await db.schema
      .createTable('collect_balance_deltas')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('delta_id', 'text', (col) => col.notNull())
      .addColumn('available', 'bigint', (col) => col.notNull())
      .addColumn('pending', 'bigint', (col) => col.notNull())
      .addColumn('held', 'bigint', (col) => col.notNull())
      // Its prefix is the index of a balance's deltas (reads and folds).
      .addPrimaryKeyConstraint('collect_balance_deltas_pk', ['account_id', 'mode', 'currency', 'delta_id'])
      .execute();
    await sql`
      insert into collect_balances (account_id, mode, currency, available, pending, held)
      select account_id, mode, currency, cast(sum(available) as bigint), cast(sum(pending) as bigint), cast(sum(held) as bigint)
      from (
        select account_id, mode, currency,
          case when status = 'credited' then amount else 0 end as available,
          case when status = 'received' then amount else 0 end as pending,
          cast(0 as bigint) as held
        from collections where status in ('received', 'credited')
        union all
        select account_id, mode, currency,
          -gross_amount,
          cast(0 as bigint),
          case when status = 'processing' then gross_amount else 0 end
        from settlements where status in ('processing', 'completed')
      ) as shares
      group by account_id, mode, currency`.execute(db);
    await db.schema.dropTable('collect_balance_locks').execute();
    await db.schema.dropIndex('collections_balance_idx').execute();
    await db.schema.dropIndex('settlements_balance_idx').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('settlements_balance_idx').on('settlements').columns(['account_id', 'mode', 'currency', 'status']).execute();
    await db.schema.createIndex('collections_balance_idx').on('collections').columns(['account_id', 'mode', 'currency', 'status']).execute();
    await db.schema
      .createTable('collect_balance_locks')
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('version', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('collect_balance_locks_pk', ['account_id', 'mode', 'currency'])
      .execute();
    await db.schema.dropTable('collect_balance_deltas').execute();
    await db.schema.dropTable('collect_balances').execute();
  },
};
