import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineUpiIntentSuite } from './upi-intent.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL UPI intent suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('UPI intent and QR on PostgreSQL', () => {
  defineUpiIntentSuite('postgres');
});
