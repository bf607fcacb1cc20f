import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../../test-support/harness';
import { defineSweepSuite } from './sweep-waiting-payments.suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL sweep suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('waiting-payment sweep on PostgreSQL', () => {
  defineSweepSuite('postgres');
});
