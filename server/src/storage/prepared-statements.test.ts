/**
 * On PostgreSQL the statements compiled once (storage/compiled-query.ts) run as named prepared statements of each
 * pooled connection (storage/prepared-statements.ts), and answer as before; other queries stay unnamed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../test-support/engines';
import { createHarness, withOwnConnection, type Harness } from '../test-support/harness';
import { SqlRailLedgerStore } from './recovery/sql-store';

forEachEngine('Prepared statements', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  test.runIf(engine === 'postgres')('a statement compiled once is prepared by name on its connection and answers as before', async () => {
    await withOwnConnection(h.database, async (db) => {
      const ledger = new SqlRailLedgerStore(db);
      const key = (reference: string) => ({ accountId: h.boot.account.accountId, mode: 'test' as const, rail: 'upi', operation: 'authorize', reference });
      const now = new Date('2025-01-01T00:00:00.000Z');
      expect(await ledger.rememberRailAnswer(key('prepared-1'), { kind: 'pending' }, now)).toEqual({ kind: 'pending' });
      expect(await ledger.rememberRailAnswer(key('prepared-2'), { kind: 'succeeded' }, now)).toEqual({ kind: 'succeeded' });
      expect(await ledger.rememberRailAnswer(key('prepared-1'), { kind: 'failed' }, now)).toEqual({ kind: 'pending' });
      await db.selectFrom('accounts').select('account_id').execute();
      const prepared = (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)).rows;
      expect(prepared.filter((row) => row.statement.startsWith('insert into "rail_ledger"')).map((row) => row.name)).toEqual([expect.stringMatching(/^rail_\d+$/)]);
      expect(prepared.some((row) => row.statement.includes('from "accounts"'))).toBe(false);
    });
  });

  test.runIf(engine === 'postgres')('with preparedStatements false (RAIL_PG_PREPARED_STATEMENTS=off) nothing is prepared', async () => {
    await withOwnConnection(h.database, async (db) => {
      const ledger = new SqlRailLedgerStore(db);
      const key = { accountId: h.boot.account.accountId, mode: 'test' as const, rail: 'upi', operation: 'authorize', reference: 'unprepared-1' };
      expect(await ledger.rememberRailAnswer(key, { kind: 'pending' }, new Date('2025-01-01T00:00:00.000Z'))).toEqual({ kind: 'pending' });
      expect((await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)).rows).toEqual([]);
    }, { preparedStatements: false });
  });
});
