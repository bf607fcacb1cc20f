/**
 * The sweeps read payments through partial indexes (migration 0017), on both engines: the statement each store
 * method sends is explained on the migrated schema and must name its index (SQLite proves a partial index covers a
 * query from the values bound to it, PostgreSQL plans an unnamed statement with its values).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import type { Database } from '../schema';
import { SqlPaymentListStore } from './sql-store';

forEachEngine('Payment indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The plan of every statement `read` sends, as text (PostgreSQL with sequential scans off: its tables here are tiny). */
  async function plansOf(read: (store: SqlPaymentListStore) => Promise<unknown>): Promise<string> {
    const sent: CompiledQuery[] = [];
    const recording = h.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        sent.push(h.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await read(new SqlPaymentListStore(recording));
    expect(sent.length).toBeGreaterThan(0);
    return h.db.transaction().execute(async (tx: Kysely<Database>) => {
      const explain = engine === 'postgres' ? 'explain' : 'explain query plan';
      if (engine === 'postgres') await tx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
      const plans: string[] = [];
      for (const query of sent) {
        const { rows } = await tx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]));
        plans.push(...rows.map((row) => String(row['detail'] ?? row['QUERY PLAN'])));
      }
      return plans.join('\n');
    });
  }

  test('the processing sweep reads payments_status_updated_idx', async () => {
    expect(await plansOf((store) => store.listPaymentsProcessingBefore(new Date(), 10))).toMatch(/payments_status_updated_idx/);
  });

  test('the waiting-payments sweep reads payments_status_updated_idx, from the start and after a cursor', async () => {
    expect(await plansOf((store) => store.listWaitingPayments(null, 10))).toMatch(/payments_status_updated_idx/);
    const cursor = { updatedAt: new Date(), accountId: h.boot.account.accountId, mode: 'test' as const, paymentId: 'pay_x' };
    expect(await plansOf((store) => store.listWaitingPayments(cursor, 10))).toMatch(/payments_status_updated_idx/);
  });

  test('the authorization expiry sweep reads payments_authorization_expiry_idx', async () => {
    expect(await plansOf((store) => store.listLapsedAuthorizations(['requires_capture'], new Date(), 10))).toMatch(/payments_authorization_expiry_idx/);
  });
});
