/**
 * Runs a suite on each storage engine, the way kysely's tests loop their dialects: `forEachEngine('Refunds API',
 * (engine) => { ... })` defines "Refunds API on SQLite" and "Refunds API on PostgreSQL". PostgreSQL is probed once
 * per test file; when it is not reachable its suites are skipped with one warning, never silently.
 */
import { describe } from 'vitest';
import type { Engine } from '../storage/database';
import { postgresReachable, TEST_DATABASE_URL } from './harness';

const postgres = await postgresReachable();
if (!postgres) console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL suites are SKIPPED.\n`);

const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export function forEachEngine(name: string, define: (engine: Engine) => void): void {
  describe(`${name} on ${ENGINE_NAMES.sqlite}`, () => define('sqlite'));
  describe.skipIf(!postgres)(`${name} on ${ENGINE_NAMES.postgres}`, () => define('postgres'));
}
