/**
 * The plans of the statements a store method sends, explained on the harness's migrated schema: what the index tests
 * (storage/<family>/indexes.test.ts) hold to the index each read must walk.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../storage/schema';
import type { Harness } from './harness';

/**
 * The plan of every statement `read` sends through the store `makeStore` builds on a recording connection, as text
 * (PostgreSQL with sequential scans off: the tables of a test are tiny; SQLite proves a partial index covers a query
 * from the values bound to it, PostgreSQL plans an unnamed statement with its values).
 */
export async function plansOf<Store>(h: Harness, makeStore: (db: Kysely<Database>) => Store, read: (store: Store) => Promise<unknown>): Promise<string> {
  const sent: CompiledQuery[] = [];
  const recording = h.db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      sent.push(h.db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  await read(makeStore(recording));
  expect(sent.length).toBeGreaterThan(0);
  const postgres = h.engine === 'postgres';
  return h.db.transaction().execute(async (tx: Kysely<Database>) => {
    if (postgres) await tx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
    const plans: string[] = [];
    for (const query of sent) {
      const explain = postgres ? 'explain' : 'explain query plan';
      const { rows } = await tx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]));
      plans.push(...rows.map((row) => String(row['detail'] ?? row['QUERY PLAN'])));
    }
    return plans.join('\n');
  });
}
