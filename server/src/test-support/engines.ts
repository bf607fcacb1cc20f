/**
 * Runs a suite on each storage engine, the way kysely's tests loop their dialects: `forEachEngine('Refunds API',
 * (engine) => { ... })` defines "Refunds API on SQLite" and "Refunds API on PostgreSQL". PostgreSQL is probed once
 * per test file; when it is not reachable its suites are skipped with one warning, never silently.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { Engine } from '../storage/database';
import { createTestDatabase, postgresReachable, TEST_DATABASE_URL, type TestDatabase } from './harness';

const postgres = await postgresReachable();
if (!postgres) console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL suites are SKIPPED.\n`);

const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export function forEachEngine(name: string, define: (engine: Engine) => void): void {
  describe(`${name} on ${ENGINE_NAMES.sqlite}`, () => define('sqlite'));
  describe.skipIf(!postgres)(`${name} on ${ENGINE_NAMES.postgres}`, () => define('postgres'));
}

/**
 * A suite for PostgreSQL alone (skipped, with the warning above, when it is not reachable), with a new database of its
 * own: created before its tests, dropped after them.
 */
export function onPostgres(name: string, define: (database: () => TestDatabase) => void): void {
  describe.skipIf(!postgres)(name, () => {
    let database: TestDatabase | undefined;
    beforeAll(async () => {
      database = await createTestDatabase('postgres');
    });
    afterAll(async () => {
      await database?.drop();
    });
    define(() => database!);
  });
}
