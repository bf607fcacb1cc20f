import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineDispatcherSuite } from './dispatcher-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL dispatcher suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('webhook dispatcher on PostgreSQL', () => {
  defineDispatcherSuite('postgres');
});
