/**
 * The refunds' reads walk an index in the order they ask for (migration 0029), on both engines: the statement each
 * store method sends is explained on the migrated schema and must name its index and sort nothing (SQLite proves a
 * partial index covers a query from the values bound to it, PostgreSQL plans an unnamed statement with its values).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { plansOf as plansOfStore } from '../../test-support/query-plans';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import { SqlRefundStore } from './sql-store';

/** A sort step in a plan: SQLite's temporary B-tree, PostgreSQL's Sort or Incremental Sort node. */
const SORTS = /temp b-tree|\bsort\b/i;

/** On PostgreSQL, a page after a cursor starts the index scan at it (an Index Cond), not a Filter from the oldest. */
function expectCursorBoundsTheScan(plan: string): void {
  if (!/Index Cond|Index Scan|Bitmap/.test(plan)) return; // SQLite: its plan names the index, not the conditions
  expect(plan).not.toMatch(/Filter:[^\n]*created_at/);
  expect(plan).toMatch(/Index Cond:[^\n]*ROW\(created_at, account_id, mode, refund_id\)/);
}

forEachEngine('Refund indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const plansOf = (read: (store: SqlRefundStore) => Promise<unknown>) => plansOfStore(h, (db) => new SqlRefundStore(db), read);

  test('the recovery job reads pending refunds oldest first through refunds_pending_keyset_idx, without a sort', async () => {
    const plan = await plansOf((store) => store.listRefundsPendingBefore(new Date(), 10));
    expect(plan).toMatch(/refunds_pending_keyset_idx/);
    expect(plan).not.toMatch(SORTS);
    const after = { accountId: h.boot.account.accountId, mode: 'test' as const, createdAt: new Date(), refundId: 'ref_x' };
    const paged = await plansOf((store) => store.listRefundsPendingBefore(new Date(), 10, after));
    expect(paged).toMatch(/refunds_pending_keyset_idx/);
    expect(paged).not.toMatch(SORTS);
    expectCursorBoundsTheScan(paged);
  });

  test('the refund list reads a page newest first through refunds_list_idx, without a sort', async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    const filter = { createdFrom: new Date('2000-01-01T00:00:00Z'), createdTo: new Date(), limit: 10, offset: 0 };
    const plan = await plansOf((store) => store.listRefunds(scope, filter));
    expect(plan).toMatch(/refunds_list_idx/);
    expect(plan).not.toMatch(SORTS);
  });

  test("a payment's embedded refunds are read newest first through refunds_payment_created_idx, without a sort", async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    const plan = await plansOf((store) => store.listRefundsOfPayment(scope, 'pay_0000000000000000000A', 100));
    expect(plan).toMatch(/refunds_payment_created_idx/);
    expect(plan).not.toMatch(SORTS);
  });
});
