/**
 * The renewal tick finds the outstanding renewals (of any status: a subscription paused or cancelled while its renewal
 * was charged still owes its settlement) through their partial index (migration 0028), on both engines: the statement
 * the store sends is explained on the migrated schema and must name the index.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import type { Database } from '../schema';
import { SqlSubscriptionStore } from './sql-store';

forEachEngine('Subscription indexes', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The plan of every statement `read` sends, as text (PostgreSQL with sequential scans off: its tables here are tiny). */
  async function plansOf(read: (store: SqlSubscriptionStore) => Promise<unknown>): Promise<string> {
    const sent: CompiledQuery[] = [];
    const recording = h.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        sent.push(h.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await read(new SqlSubscriptionStore(recording));
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

  test('the outstanding renewals are read through subscriptions_outstanding_renewal_idx', async () => {
    const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
    expect(await plansOf((store) => store.listOutstandingRenewals(scope, 100))).toMatch(/subscriptions_outstanding_renewal_idx/);
  });
});
