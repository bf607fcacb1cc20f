/**
 * Migration 0034 on a store that holds rows: it runs in one transaction (as Kysely's Migrator runs PostgreSQL's), and
 * while it builds its indexes the tables they are on stay readable from another connection. Only its last statements,
 * the drops of the indexes it replaces, take the lock that blocks reads (until the commit). On SQLite (no such locks)
 * the order of its statements is checked alone.
 */
import { sql, type Kysely } from 'kysely';
import { expect, test } from 'vitest';
import { openDatabase } from '../database';
import { createTestDatabase } from '../../test-support/harness';
import { forEachEngine } from '../../test-support/engines';
import { MIGRATION_NAMES, migrateStepByStep } from './index';
import { migration0034RecoveryKeyset } from './0034-recovery-keyset';

const MIGRATION = '0034_recovery_keyset';
const BEFORE = MIGRATION_NAMES[MIGRATION_NAMES.indexOf(MIGRATION) - 1]!;
const TABLES = ['payments', 'refunds', 'payment_captures'];

forEachEngine('migration 0034 (recovery keyset)', (engine) => {
  test('builds its indexes while their tables stay readable, and drops the ones it replaces last', async () => {
    const database = await createTestDatabase(engine);
    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
    const raw = db as unknown as Kysely<unknown>;
    try {
      await migrateStepByStep(raw, BEFORE);
      /** The tables another connection cannot read now (PostgreSQL: a read that waits for a lock gives up at once). */
      const unreadable = async (): Promise<string[]> => {
        if (engine !== 'postgres') return [];
        const blocked: string[] = [];
        for (const table of TABLES) {
          try {
            await raw.transaction().execute(async (probe) => {
              await sql`set local lock_timeout = '50ms'`.execute(probe);
              await sql`select 1 from ${sql.table(table)} limit 1`.execute(probe);
            });
          } catch (error) {
            if ((error as { code?: string }).code !== '55P03') throw error;
            blocked.push(table);
          }
        }
        return blocked;
      };
      const steps: { statement: string; unreadableBefore: string[] }[] = [];
      await raw.transaction().execute(async (tx) => {
        const statements: string[] = [];
        // Before each statement: which tables the transaction had made unreadable so far.
        const unreadableBefore: string[][] = [await unreadable()];
        const recording = tx.withPlugin({
          transformQuery: ({ node, queryId }) => {
            statements.push(tx.getExecutor().compileQuery(node, queryId).sql);
            return node;
          },
          transformResult: async ({ result }) => {
            unreadableBefore.push(await unreadable());
            return result;
          },
        });
        await migration0034RecoveryKeyset.up(recording);
        statements.forEach((statement, i) => steps.push({ statement, unreadableBefore: unreadableBefore[i]! }));
      });
      const creates = steps.filter((step) => /^create index/i.test(step.statement));
      const drops = steps.filter((step) => /^drop index/i.test(step.statement));
      expect(creates).toHaveLength(4);
      expect(drops).toHaveLength(3);
      // Every index is built before the first drop, and with every table readable.
      expect(steps.findIndex((step) => /^drop index/i.test(step.statement))).toBe(creates.length);
      for (const step of creates) expect(step.unreadableBefore, step.statement).toEqual([]);
      if (engine === 'postgres') expect(drops[drops.length - 1]?.unreadableBefore.length).toBeGreaterThan(0);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
