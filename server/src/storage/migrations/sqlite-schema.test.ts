/**
 * An empty SQLite store is created from sqlite-schema.ts in one step, and that file is exactly the schema and the
 * migration log the migrations leave when Kysely's Migrator applies them one by one.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, expect, test } from 'vitest';
import { openDatabase } from '../database';
import { createTestDatabase, type TestDatabase } from '../../test-support/harness';
import { MIGRATION_NAMES, migrateStepByStep, migrateToLatest } from './index';
import { sqliteSchemaModule } from './sqlite-schema-source';

const opened: { db: Kysely<unknown>; database: TestDatabase }[] = [];
afterEach(async () => {
  for (const { db, database } of opened.splice(0)) {
    await db.destroy();
    await database.drop();
  }
});

async function emptyStore(): Promise<{ db: Kysely<unknown>; file: string }> {
  const database = await createTestDatabase('sqlite');
  const db = openDatabase({ sqliteFile: database.sqliteFile }).db as unknown as Kysely<unknown>;
  opened.push({ db, database });
  return { db, file: database.sqliteFile };
}

/** Everything SQLite keeps of a schema (implicit indexes too), the migration log's names and the lock row. */
async function schemaOf(db: Kysely<unknown>) {
  const objects = await sql`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(db);
  const log = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  const lock = await sql`select id, is_locked from kysely_migration_lock`.execute(db);
  return { objects: objects.rows, log: log.rows.map((row) => row.name), lock: lock.rows };
}

test('sqlite-schema.ts is what `npm run schema:sqlite` writes for these migrations', async () => {
  const checkedIn = readFileSync(fileURLToPath(new URL('./sqlite-schema.ts', import.meta.url)), 'utf8');
  expect(checkedIn, 'a migration changed: run `npm run schema:sqlite`').toBe(await sqliteSchemaModule());
});

test('an empty store gets in one step the schema and the log that the migrations leave one by one', async () => {
  const { db: stepByStep } = await emptyStore();
  await migrateStepByStep(stepByStep);
  const { db: fresh } = await emptyStore();
  expect(await migrateToLatest(fresh)).toBe('created-from-schema');

  const expected = await schemaOf(stepByStep);
  expect(expected.objects.length).toBeGreaterThan(50);
  expect(expected.log).toEqual([...MIGRATION_NAMES].sort());
  expect(await schemaOf(fresh)).toEqual(expected);
  expect(await migrateToLatest(fresh)).toBe('up-to-date');
});

test('the schema is committed when migrateToLatest resolves: another connection sees it', async () => {
  const { db, file } = await emptyStore();
  expect(await migrateToLatest(db)).toBe('created-from-schema');
  const reader = new BetterSqlite3(file, { readonly: true });
  try {
    expect(reader.prepare('select count(*) as payments from payments').get()).toEqual({ payments: 0 });
  } finally {
    reader.close();
  }
});

test('a store with anything in it goes through the Migrator', async () => {
  const { db } = await emptyStore();
  await sql`create table operator_notes (note text)`.execute(db);
  expect(await migrateToLatest(db)).toBe('migrated');
  expect((await schemaOf(db)).log).toEqual([...MIGRATION_NAMES].sort());
});
