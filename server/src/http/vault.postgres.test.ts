import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineVaultSuite } from './vault.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL vault suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('vault and simulators on PostgreSQL', () => {
  defineVaultSuite('postgres');
});
