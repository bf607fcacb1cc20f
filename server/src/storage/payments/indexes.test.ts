/**
 * The sweeps read payments through partial indexes (migration 0017), on both engines: the statement each store
 * method sends is explained on the migrated schema and must name its index (SQLite proves a partial index covers a
 * query from the values bound to it, PostgreSQL plans an unnamed statement with its values).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { plansOf as plansOfStore } from '../../test-support/query-plans';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import { SqlPaymentCaptureStore, SqlPaymentListStore } from './sql-store';

/**
 * On PostgreSQL, a page after a cursor starts the index scan at the cursor (an Index Cond on its row value), instead
 * of filtering every row from the oldest: no Filter names the listing's order key.
 */
function expectCursorBoundsTheScan(plan: string): void {
  if (!/Index Cond|Index Scan|Bitmap/.test(plan)) return; // SQLite: its plan names the index, not the conditions
  expect(plan).not.toMatch(/Filter:[^\n]*(updated_at|created_at)/);
  expect(plan).toMatch(/Index Cond:[^\n]*ROW\((updated_at|created_at), account_id, mode, /);
}

forEachEngine('Payment indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const plansOf = (read: (store: SqlPaymentListStore) => Promise<unknown>) => plansOfStore(h, (db) => new SqlPaymentListStore(db), read);

  test('the processing sweep reads payments_status_updated_idx', async () => {
    expect(await plansOf((store) => store.listPaymentsProcessingBefore(new Date(), 10))).toMatch(/payments_status_updated_idx/);
  });

  test('the waiting-payments sweep reads payments_status_updated_idx, from the start and after a cursor', async () => {
    expect(await plansOf((store) => store.listWaitingPayments(null, 10))).toMatch(/payments_status_updated_idx/);
    const cursor = { updatedAt: new Date(), accountId: h.boot.account.accountId, mode: 'test' as const, paymentId: 'pay_x' };
    const paged = await plansOf((store) => store.listWaitingPayments(cursor, 10));
    expect(paged).toMatch(/payments_status_updated_idx/);
    expectCursorBoundsTheScan(paged);
  });

  test('the recovery job reads pending captures and payments whose hold is changing at the rail through their partial indexes (0030)', async () => {
    expect(await plansOf((store) => store.listPaymentsHoldChangingBefore(new Date(), 10))).toMatch(/payments_hold_changing_keyset_idx/);
    const capturePlan = await plansOfStore(h, (db) => new SqlPaymentCaptureStore(db), (store) => store.listCapturesPendingBefore(new Date(), 10));
    expect(capturePlan).toMatch(/payment_captures_pending_keyset_idx/);
  });

  test('the recovery job pages each listing after a cursor through its index (0034), without a sort', async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    const payment = { ...scope, updatedAt: new Date(), paymentId: 'pay_x' };
    const plans = [
      [await plansOf((store) => store.listPaymentsProcessingBefore(new Date(), 10, payment)), /payments_status_updated_idx/, true],
      [await plansOf((store) => store.listPaymentsHoldChangingBefore(new Date(), 10, payment)), /payments_hold_changing_keyset_idx/, true],
      [await plansOf((store) => store.listPaymentsRailChangingBefore(new Date(), 10)), /payments_rail_change_updated_idx/, false],
      [await plansOf((store) => store.listPaymentsRailChangingBefore(new Date(), 10, payment)), /payments_rail_change_updated_idx/, true],
      [
        await plansOfStore(h, (db) => new SqlPaymentCaptureStore(db), (store) => store.listCapturesPendingBefore(new Date(), 10, { ...scope, createdAt: new Date(), captureId: 'pay_x_1_1' })),
        /payment_captures_pending_keyset_idx/,
        true,
      ],
    ] as const;
    for (const [plan, index, paged] of plans) {
      expect(plan).toMatch(index);
      expect(plan).not.toMatch(/temp b-tree|\bsort\b/i);
      if (paged) expectCursorBoundsTheScan(plan);
    }
  });

  test('the authorization expiry sweep reads payments_authorization_expiry_idx', async () => {
    expect(await plansOf((store) => store.listLapsedAuthorizations(['requires_capture'], new Date(), 10))).toMatch(/payments_authorization_expiry_idx/);
  });
});
