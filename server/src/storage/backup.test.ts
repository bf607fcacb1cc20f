/**
 * Backup and restore round trip (docs/reliability.md, docs/operations.md "Backup and restore"): SQLite's online
 * backup taken while the server's connection is open, and pg_dump / pg_restore on PostgreSQL. The restored database
 * opens at the same migration, and its payments, refunds and outbox events read back as stored.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PaymentResponse } from '../../../protocol/api/payments';
import type { RefundResponse } from '../../../protocol/api/refunds';
import { apiRequest, expectOk } from '../test-support/api-assertions';
import { forEachEngine } from '../test-support/engines';
import { createHarness, createTestDatabase, type Harness, type TestDatabase } from '../test-support/harness';
import { openDatabase } from './database';
import { SqlStore } from './sql-store';

const run = promisify(execFile);
const TABLES = ['payments', 'payment_attempts', 'refunds', 'webhook_events', 'api_keys', 'kysely_migration'] as const;

forEachEngine('Backup and restore', (engine) => {
  let h: Harness;
  let restored: TestDatabase;

  beforeAll(async () => {
    h = await createHarness(engine);
    restored = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await h?.close();
    await restored?.drop();
  });

  test('a backup taken while the server runs restores every payment, refund and event as stored', async () => {
    const paid = await expectOk<PaymentResponse>(
      await apiRequest(h, 'POST', '/payments', {
        body: { amount: 2500, currency: 'INR', confirm: true, metadata: { order: 'A-1' }, payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } },
      }),
    );
    const refund = await expectOk<RefundResponse>(await apiRequest(h, 'POST', '/refunds', { body: { payment_id: paid.payment_id, amount: 1000 } }));

    if (engine === 'sqlite') {
      const source = new BetterSqlite3(h.database.sqliteFile, { readonly: true });
      try {
        await source.backup(restored.sqliteFile);
      } finally {
        source.close();
      }
    } else {
      const dump = join(restored.sqliteFile, '..', 'rail.dump');
      await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, h.database.databaseUrl!]);
      await run('pg_restore', ['--no-owner', `--dbname=${restored.databaseUrl!}`, dump]);
    }

    const { db } = openDatabase({ databaseUrl: restored.databaseUrl, sqliteFile: restored.sqliteFile, poolSize: 1 });
    const store = new SqlStore(db, engine);
    try {
      // Opens at the same migration: nothing left to apply.
      await store.migrate();
      const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
      expect(await store.payments.findPayment(scope, paid.payment_id)).toEqual(await h.store.payments.findPayment(scope, paid.payment_id));
      expect(await store.refunds.findRefund(scope, refund.refund_id)).toEqual(await h.store.refunds.findRefund(scope, refund.refund_id));
      for (const table of TABLES) {
        const count = (database: typeof db) => sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(database).then((r) => Number(r.rows[0]?.n));
        expect(await count(db), table).toBe(await count(h.db));
      }
    } finally {
      await store.close();
    }
  });
});
