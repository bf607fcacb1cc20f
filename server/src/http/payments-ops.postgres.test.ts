import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { definePaymentOpsSuite } from './payments-ops.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL payments-operations suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('payments operations on PostgreSQL', () => {
  definePaymentOpsSuite('postgres');
});
