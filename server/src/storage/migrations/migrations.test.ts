/**
 * migrateToLatest at start: a fresh store gets every migration; an up-to-date one is recognized with one query
 * (no Migrator, no lock); a store whose log names a migration this code does not know still fails as Kysely's
 * Migrator fails.
 */
import { Kysely, PostgresDialect, sql, type KyselyPlugin, type LogEvent } from 'kysely';
import pg from 'pg';
import { afterEach, expect, test } from 'vitest';
import { openDatabase } from '../database';
import { createTestDatabase, type TestDatabase } from '../../test-support/harness';
import { forEachEngine, onPostgres } from '../../test-support/engines';
import { migrateToLatest } from './index';

const opened: { db: Kysely<unknown>; database: TestDatabase }[] = [];
afterEach(async () => {
  for (const { db, database } of opened.splice(0)) {
    await db.destroy();
    await database.drop();
  }
});

/** A database and a count of the queries run through it. */
async function countedDatabase(engine: 'sqlite' | 'postgres'): Promise<{ db: Kysely<unknown>; queries: () => number }> {
  const database = await createTestDatabase(engine);
  const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
  opened.push({ db: db as unknown as Kysely<unknown>, database });
  let count = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      count += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: (db as unknown as Kysely<unknown>).withPlugin(counter), queries: () => count };
}

async function appliedNames(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

forEachEngine('migrations at start', (engine) => {
  test('a fresh store gets every migration; an up-to-date one is recognized with one query', async () => {
    const { db, queries } = await countedDatabase(engine);
    await migrateToLatest(db);
    const applied = await appliedNames(db);
    expect(applied.length).toBeGreaterThan(10);
    expect(applied[0]).toBe('0001_init');
    const fresh = queries();
    expect(fresh).toBeGreaterThan(applied.length);

    const before = queries();
    await migrateToLatest(db);
    // PostgreSQL asks whether the log exists first (a failed select would be an ERROR in its log).
    expect(queries() - before).toBe(engine === 'postgres' ? 2 : 1);
    expect(await appliedNames(db)).toEqual(applied);
  });

  test('a log naming a migration this code does not know still fails, as before', async () => {
    const { db } = await countedDatabase(engine);
    await migrateToLatest(db);
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_version', '2030-01-01T00:00:00.000Z')`.execute(db);
    await expect(migrateToLatest(db)).rejects.toThrow(/migration/);
  });
});

onPostgres('migrations at start, PostgreSQL', (database) => {
  test('a fresh database is migrated without a failed statement, which PostgreSQL would log as an ERROR', async () => {
    const failed: LogEvent[] = [];
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database().databaseUrl, max: 2 }) }),
      log: (event) => {
        if (event.level === 'error') failed.push(event);
      },
    });
    try {
      expect(await migrateToLatest(db)).toBe('migrated');
      expect(await migrateToLatest(db)).toBe('up-to-date');
    } finally {
      await db.destroy();
    }
    expect(failed.map((event) => event.query.sql)).toEqual([]);
  });
});
