import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineEventsApiSuite } from './events.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL events API suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('events API on PostgreSQL', () => {
  defineEventsApiSuite('postgres');
});
