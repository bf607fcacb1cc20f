/**
 * Migration 0020 on PostgreSQL: no table's account_id is a foreign key to accounts, so a merchant's writes never
 * lock its account row (a foreign key's check takes FOR KEY SHARE on the parent row). Shown by holding that row
 * FOR UPDATE in another session while a payment is created and confirmed with an Idempotency-Key, which inserts
 * into payments, payment_attempts, webhook_events and idempotency_keys: under the former constraints each insert
 * waited for that lock.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiRequest, expectOk } from '../../test-support/api-assertions';
import { createHarness, postgresReachable, type Harness } from '../../test-support/harness';

const postgres = await postgresReachable();

describe.skipIf(!postgres)('account_id without foreign keys on PostgreSQL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('postgres');
  });
  afterAll(async () => {
    await h?.close();
  });

  const post = (path: string, body: unknown, idempotencyKey: string) =>
    apiRequest(h, 'POST', path, { body, headers: { 'idempotency-key': idempotencyKey } });

  test('no foreign key references accounts; those between an account’s own rows stay', async () => {
    const { rows } = await sql<{ child: string; parent: string }>`select conrelid::regclass::text as child, confrelid::regclass::text as parent
      from pg_constraint where contype = 'f'`.execute(h.db);
    expect(rows.filter((row) => row.parent === 'accounts')).toEqual([]);
    expect(rows).toEqual(expect.arrayContaining([{ child: 'refunds', parent: 'payments' }, { child: 'webhook_attempts', parent: 'webhook_events' }]));
  });

  test('a payment is created and confirmed, with a key, while another session holds the account row FOR UPDATE', async () => {
    const holder = new pg.Client({ connectionString: h.database.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      const locked = await holder.query('select account_id from accounts where account_id = $1 for update', [h.boot.account.accountId]);
      expect(locked.rowCount).toBe(1);
      const payment = (async () => {
        const body = { amount: 2500, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };
        const { payment_id: paymentId } = await expectOk<{ payment_id: string }>(await post('/payments', body, 'fk-create'));
        return (await expectOk<{ status: string }>(await post(`/payments/${paymentId}/confirm`, {}, 'fk-confirm'))).status;
      })();
      const waited = new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 5_000).unref());
      expect(await Promise.race([payment, waited])).toBe('succeeded');
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });
});
