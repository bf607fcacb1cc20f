import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineRefundsSuite } from './refunds.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL refunds suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('Refunds API on PostgreSQL', () => {
  defineRefundsSuite('postgres');
});
