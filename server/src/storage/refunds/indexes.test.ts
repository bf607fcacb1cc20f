/**
 * The refunds' reads walk an index in the order they ask for (migration 0029), on both engines: the statement each
 * store method sends is explained on the migrated schema and must name its index and sort nothing (SQLite proves a
 * partial index covers a query from the values bound to it, PostgreSQL plans an unnamed statement with its values).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import type { Database } from '../schema';
import { SqlRefundStore } from './sql-store';

/** A sort step in a plan: SQLite's temporary B-tree, PostgreSQL's Sort or Incremental Sort node. */
const SORTS = /temp b-tree|\bsort\b/i;

forEachEngine('Refund indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The plan of every statement `read` sends, as text (PostgreSQL with sequential scans off: its tables here are tiny). */
  async function plansOf(read: (store: SqlRefundStore) => Promise<unknown>): Promise<string> {
    const sent: CompiledQuery[] = [];
    const recording = h.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        sent.push(h.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await read(new SqlRefundStore(recording));
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

  test('the recovery job reads pending refunds oldest first through refunds_pending_created_idx, without a sort', async () => {
    const plan = await plansOf((store) => store.listRefundsPendingBefore(new Date(), 10));
    expect(plan).toMatch(/refunds_pending_created_idx/);
    expect(plan).not.toMatch(SORTS);
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
