/**
 * The property-based robustness test (fuzz.api-suite.ts) on SQLite, and with fewer runs on PostgreSQL.
 * RAIL_FUZZ_SEED=<n> replays a run; the seed of a failing run is printed by fast-check.
 */
import { describe } from 'vitest';
import { postgresReachable } from '../test-support/harness';
import { defineFuzzSuite } from './fuzz.api-suite';

describe('fuzz on SQLite', () => {
  defineFuzzSuite('sqlite', 600);
});

const reachable = await postgresReachable();
describe.skipIf(!reachable)('fuzz on PostgreSQL', () => {
  defineFuzzSuite('postgres', 150);
});
