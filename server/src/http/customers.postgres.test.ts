import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineCustomersSuite } from './customers.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL customers suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('customers API on PostgreSQL', () => {
  defineCustomersSuite('postgres');
});
