/**
 * Migration 0033 on SQLite and PostgreSQL: a store with Collect history from before it gets one balance row per
 * account, mode and currency, equal to the sums by status it used to derive (test-support oracle), exact past 2^53;
 * no deltas yet; the lock table is gone and the stored rows are what balance reads and settlements then use.
 */
import { sql, type Kysely } from 'kysely';
import { expect, test } from 'vitest';
import { openDatabase } from '../database';
import { collectSqlStores } from '../collect/sql-store';
import { createTestDatabase } from '../../test-support/harness';
import { derivedCollectBalances, nonZeroBalances } from '../../test-support/derived-collect-balances';
import { forEachEngine } from '../../test-support/engines';
import type { Scope } from '../../kernel/store-types';
import { MIGRATION_NAMES, migrateStepByStep } from './index';

const MIGRATION = '0033_collect_balances';
const BEFORE = MIGRATION_NAMES[MIGRATION_NAMES.indexOf(MIGRATION) - 1]!;
const CREATED = '2025-01-01T00:00:00.000Z';
const LARGEST = 9_007_199_254_740_991; // 2^53 - 1 minor units: two of them sum past what a double holds

forEachEngine('migration 0033 (stored Collect balances)', (engine) => {
  test('fills a balance row per account, mode and currency from the collections and settlements made before it', async () => {
    const database = await createTestDatabase(engine);
    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
    const raw = db as unknown as Kysely<unknown>;
    try {
      expect(BEFORE).toBeDefined();
      await migrateStepByStep(raw, BEFORE);
      for (const accountId of ['acc_a', 'acc_b']) {
        await sql`insert into accounts (account_id, slug, name, settings, created_at) values (${accountId}, ${accountId}, ${accountId}, '{}', ${CREATED})`.execute(raw);
      }
      let n = 0;
      const collection = async (accountId: string, mode: string, currency: string, status: string, amount: number) => {
        n += 1;
        await sql`insert into collections (account_id, mode, collection_id, status, amount, currency, country, method, customer_reference, instructions, plan, expires_at, created_at, updated_at)
          values (${accountId}, ${mode}, ${`col_${n}`}, ${status}, ${amount}, ${currency}, ${currency === 'KES' ? 'KE' : 'UG'}, 'mobile_money', 'ref', '{}', 'approve', ${CREATED}, ${CREATED}, ${CREATED})`.execute(raw);
      };
      const settlement = async (accountId: string, mode: string, currency: string, status: string, gross: number) => {
        n += 1;
        await sql`insert into settlements (account_id, mode, settlement_id, status, currency, gross_amount, fee, rate, rate_minor_per_usdt, rate_time, net_usdt_micro, wallet_network, wallet_address, plan, created_at, updated_at)
          values (${accountId}, ${mode}, ${`stl_${n}`}, ${status}, ${currency}, ${gross}, 0, '1', 1, ${CREATED}, '0', 'tron', 'T', 'complete', ${CREATED}, ${CREATED})`.execute(raw);
      };
      // acc_a test KES: every status of both objects.
      for (const [status, amount] of [['pending', 100], ['received', 2_000], ['credited', 50_000], ['credited', 7_000], ['failed', 300], ['expired', 400]] as const) {
        await collection('acc_a', 'test', 'KES', status, amount);
      }
      for (const [status, gross] of [['processing', 1_500], ['completed', 20_000], ['failed', 9_000]] as const) await settlement('acc_a', 'test', 'KES', status, gross);
      // acc_a test UGX: only received; acc_a live KES: past 2^53; acc_b test KES: its settlement failed (released).
      await collection('acc_a', 'test', 'UGX', 'received', 5_000);
      await collection('acc_a', 'live', 'KES', 'credited', LARGEST);
      await collection('acc_a', 'live', 'KES', 'credited', LARGEST);
      await settlement('acc_a', 'live', 'KES', 'processing', 1);
      await collection('acc_b', 'test', 'KES', 'credited', 800);
      await settlement('acc_b', 'test', 'KES', 'failed', 800);
      await collection('acc_b', 'test', 'UGX', 'expired', 100);

      const scopes: Scope[] = [
        { accountId: 'acc_a', mode: 'test' },
        { accountId: 'acc_a', mode: 'live' },
        { accountId: 'acc_b', mode: 'test' },
      ];
      const derived = await Promise.all(scopes.map((scope) => derivedCollectBalances(raw, scope)));

      await migrateStepByStep(raw);

      const balances = collectSqlStores(db).collectBalances;
      const stored = await Promise.all(scopes.map((scope) => balances.readBalances(scope)));
      expect(stored.map(nonZeroBalances)).toEqual(derived.map(nonZeroBalances));
      expect(stored.map(nonZeroBalances)).toEqual([
        [
          { currency: 'KES', available: 57_000n - 1_500n - 20_000n, pending: 2_000n, held: 1_500n },
          { currency: 'UGX', available: 0n, pending: 5_000n, held: 0n },
        ],
        [{ currency: 'KES', available: 2n * BigInt(LARGEST) - 1n, pending: 0n, held: 1n }],
        [{ currency: 'KES', available: 800n, pending: 0n, held: 0n }],
      ]);
      const locks = engine === 'postgres' ? sql`select to_regclass('collect_balance_locks') as present` : sql`select name as present from sqlite_master where name = 'collect_balance_locks'`;
      const { rows } = await locks.execute(raw);
      expect(rows.filter((row) => (row as { present: unknown }).present !== null)).toEqual([]);

      // The filled row is the folded balance (no deltas yet); from then on a settlement folds into it and records its debit.
      expect((await sql`select delta_id from collect_balance_deltas`.execute(raw)).rows).toEqual([]);
      const kes = { ...scopes[0]!, currency: 'KES' as const };
      await db.transaction().execute(async (trx) => {
        const tx = collectSqlStores(trx).collectBalances;
        expect(await tx.foldBalance(kes)).toEqual({ balance: { currency: 'KES', available: 35_500n, pending: 2_000n, held: 1_500n }, folded: 0 });
        await tx.recordBalanceDelta(kes, 'stl_new:processing', { available: -500n, pending: 0n, held: 500n });
      });
      expect((await balances.readBalances(scopes[0]!)).find((balance) => balance.currency === 'KES')).toEqual({ currency: 'KES', available: 35_000n, pending: 2_000n, held: 2_000n });
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
