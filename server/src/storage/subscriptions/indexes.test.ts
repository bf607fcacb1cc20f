/**
 * The renewal tick finds the outstanding renewals (of any status: a subscription paused or cancelled while its renewal
 * was charged still owes its settlement) through their partial index (migration 0028), on both engines: the statement
 * the store sends, for the first batch and for a later one (keyset paging), is explained on the migrated schema and must
 * name the index.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { plansOf as plansOfStore } from '../../test-support/query-plans';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import { SqlSubscriptionStore } from './sql-store';

forEachEngine('Subscription indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const plansOf = (read: (store: SqlSubscriptionStore) => Promise<unknown>) => plansOfStore(h, (db) => new SqlSubscriptionStore(db), read);

  test('the outstanding renewals are read through subscriptions_outstanding_renewal_idx', async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    expect(await plansOf((store) => store.listOutstandingRenewals(scope, 100))).toMatch(/subscriptions_outstanding_renewal_idx/);
  });

  test('a later batch of them, after the last one listed, is read through it too', async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    const after = { updatedAt: new Date('2025-01-01T00:00:00.000Z'), subscriptionId: 'sub_0123456789' };
    expect(await plansOf((store) => store.listOutstandingRenewals(scope, 100, after))).toMatch(/subscriptions_outstanding_renewal_idx/);
  });
});
