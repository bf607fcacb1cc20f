import { describe } from 'vitest';
import { postgresReachable, TEST_DATABASE_URL } from '../test-support/harness';
import { defineIdempotencySuite } from './idempotency.api-suite';

const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the PostgreSQL idempotency suite is SKIPPED.\n`);
}

describe.skipIf(!reachable)('Idempotency-Key on PostgreSQL', () => {
  defineIdempotencySuite('postgres');
});
