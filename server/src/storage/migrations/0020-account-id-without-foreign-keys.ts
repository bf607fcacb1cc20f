import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/** The tables whose account_id referenced accounts as of this migration (0001-0016). */
const TABLES = [
  'business_profiles',
  'api_keys',
  'operators',
  'payments',
  'webhook_events',
  'payment_attempts',
  'customers',
  'ephemeral_keys',
  'refunds',
  'idempotency_keys',
  'vault_tokens',
  'disputes',
  'files',
  'collections',
  'settlements',
  'collect_balance_locks',
  'stored_payment_methods',
  'pending_method_saves',
  'mandates',
  'subscriptions',
  'payment_captures',
];

/** PostgreSQL's name for the constraint `references('accounts.account_id')` made. */
const constraintOf = (table: string) => `${table}_account_id_fkey`;

/**
 * PostgreSQL: account_id is a plain column, no longer a foreign key to accounts. PostgreSQL checks a foreign key by
 * locking the parent row (`FOR KEY SHARE`), so every insert of every request of one merchant locked the same accounts
 * row: concurrent writers share that lock through a MultiXact, created and WAL-logged as each joins, and the row is a
 * hot spot for every instance behind a load balancer. In a same-window A/B with the key on every call, the database
 * took 0.91x the CPU per call without these constraints (docs/benchmarks-reading.md, fifteenth session).
 *
 * What the constraint guarded still holds: account_id is always the authenticated caller's (it comes from the key or
 * the operator session, never from a request body), and no operation deletes an account. Hyperswitch's schema has
 * no foreign keys either (its merchant_id is a plain column). References between one account's own rows (a refund's
 * payment, a dispute's file, a delivery's event) stay foreign keys: each locks a row that only its own requests
 * touch. SQLite keeps its constraints: it checks one by a look-up under its single writer, with no lock to share.
 */
export const migration0020AccountIdWithoutForeignKeys: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(constraintOf(table))}`.execute(db);
    }
  },

  async down(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} add constraint ${sql.ref(constraintOf(table))} foreign key (account_id) references accounts (account_id)`.execute(db);
    }
  },
};
