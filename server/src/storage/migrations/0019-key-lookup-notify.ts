import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

const FUNCTION = 'rail_key_lookup_changed';
// As of this migration (a later change to either is a migration of its own): the channel the watch listens on
// (KEY_LOOKUP_CHANNEL of storage/postgres-table-watch.ts; postgres-table-watch.test.ts fails if they part), and the
// tables the API key look-up reads (KEY_LOOKUP_TABLES of storage/accounts/key-lookup-cache.ts).
const CHANNEL = 'rail_key_lookup';
const TABLES = ['api_keys', 'accounts', 'business_profiles'];

/**
 * PostgreSQL: a notification on the key look-up channel at the commit of every statement that changes a table the API key
 * look-up reads, so that every instance drops the look-ups it keeps in memory (storage/postgres-table-watch.ts).
 * Statement triggers: one notification per statement whatever the rows (PostgreSQL folds a transaction's identical
 * notifications into one). SQLite needs none: a connection learns of other connections' commits from
 * `PRAGMA data_version` (storage/sqlite-table-watch.ts).
 */
export const migration0019KeyLookupNotify: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`create or replace function ${sql.raw(FUNCTION)}() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(CHANNEL)}, '');
        return null;
      end
    $$`.execute(db);
    for (const table of TABLES) {
      await sql`create trigger ${sql.raw(`${table}_${FUNCTION}`)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function ${sql.raw(FUNCTION)}()`.execute(db);
    }
  },

  async down(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    for (const table of TABLES) await sql`drop trigger if exists ${sql.raw(`${table}_${FUNCTION}`)} on ${sql.table(table)}`.execute(db);
    await sql`drop function if exists ${sql.raw(FUNCTION)}()`.execute(db);
  },
};
