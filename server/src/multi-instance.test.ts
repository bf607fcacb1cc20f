/**
 * Two real server processes on one fresh PostgreSQL database (different ports), every request split across both.
 *
 * - 50 concurrent confirms of one payment: exactly one answers 200 succeeded; every other answers 400 ERR_4003 (the
 *   payment is no longer confirmable), and the payment has exactly one payment_succeeded outbox row.
 * - 20 concurrent refunds of 100 on a 1000 payment: exactly 10 succeed, 10 answer 400 ERR_4008, and the refunds
 *   stored add up to the amount received (never more), with one refund_succeeded outbox row per refund.
 * - Concurrent refunds of mixed amounts that together exceed the payment: the succeeded ones never add up to more
 *   than the amount received, and every refused one (ERR_4008) would indeed not have fit.
 * - 20 concurrent captures of 1000 on a 10000 manual_multiple authorization: exactly 10 succeed, the captured total is
 *   the amount; a capture racing a void of one authorization: exactly one wins, five times over.
 * - A key revoked on one instance is refused by the other on the very next request (each keeps its key look-ups in
 *   memory, and drops them at the notification of the revocation's commit: storage/postgres-table-watch.ts), and a
 *   rotated key works on both until its grace window ends.
 * - 50 concurrent Collect settlements of 5 KES against a 100 KES balance: exactly 20 accepted, the rest ERR_4073,
 *   and available + held unchanged (never overdrawn).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { totpCode, totpStep } from './core/auth/totp';
import { openDatabase } from './storage/database';
import { onPostgres } from './test-support/engines';
import { callApi, startServer, type ApiResult, type ServerProcess } from './test-support/server-process';

const WALLET = { network: 'tron', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' };
const OPERATOR = { email: 'ops@rail.local', password: 'two instances, one operator', totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' };

onPostgres('two instances on one PostgreSQL', (database) => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  /** Request i goes to a (even) or b (odd). */
  const either = (i: number) => (i % 2 === 0 ? a : b).baseUrl;

  beforeAll(async () => {
    dirs.push(mkdtempSync(join(tmpdir(), 'rail-a-')), mkdtempSync(join(tmpdir(), 'rail-b-')));
    // Start one first so the migrations and bootstrap run once, then the second on the same database.
    // Both with the saved USDT wallet, so settlements can race across them, and one vault key (sealed TOTP secrets).
    const accountConfig = join(dirs[0] as string, 'account.json');
    // UPI with manual capture in test mode, so captures can race across them too.
    writeFileSync(
      accountConfig,
      JSON.stringify({
        usdt_wallet: WALLET,
        rails: [{ rail: 'upi', currencies: ['INR'], modes: ['test', 'live'], capabilities: { test: { refunds: true, manual_capture: true } } }],
      }),
    );
    const env = { RAIL_ACCOUNT_CONFIG: accountConfig, RAIL_OPERATOR_EMAIL: OPERATOR.email, RAIL_OPERATOR_PASSWORD: OPERATOR.password, RAIL_OPERATOR_TOTP_SECRET: OPERATOR.totpSecret, RAIL_VAULT_KEY: randomBytes(32).toString('base64') };
    servers.push(await startServer({ dataDir: dirs[0] as string, databaseUrl: database().databaseUrl, env }));
    servers.push(await startServer({ dataDir: dirs[1] as string, databaseUrl: database().databaseUrl, env }));
    [a, b] = servers as [ServerProcess, ServerProcess];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const outbox = async (objectIds: string[]): Promise<{ object_id: string; event_type: string }[]> => {
    if (objectIds.length === 0) return [];
    const { db } = openDatabase({ databaseUrl: database().databaseUrl, sqliteFile: '', poolSize: 1 });
    try {
      return await db.selectFrom('webhook_events').select(['object_id', 'event_type']).where('object_id', 'in', objectIds).execute();
    } finally {
      await db.destroy();
    }
  };

  const errorCode = (result: ApiResult) => (result.body['error'] as { code?: string } | undefined)?.code;

  test('50 concurrent confirms of one payment across both: one 200 succeeded, 49 ERR_4003', async () => {
    for (let round = 0; round < 3; round += 1) {
      const created = await callApi(a.baseUrl, 'POST', '/payments', {
        amount: 2500,
        currency: 'INR',
        payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
      });
      expect(created.status).toBe(200);
      const paymentId = String(created.body['payment_id']);
      // Both instances see it.
      expect((await callApi(b.baseUrl, 'GET', `/payments/${paymentId}`)).status).toBe(200);

      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => callApi(either(i), 'POST', `/payments/${paymentId}/confirm`, {})));
      const winners = results.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      expect(winners[0]?.body['status']).toBe('succeeded');
      for (const loser of results.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(400);
        expect(errorCode(loser)).toBe('ERR_4003');
      }
      const final = await callApi(b.baseUrl, 'GET', `/payments/${paymentId}`);
      expect(final.body).toMatchObject({ status: 'succeeded', amount_received: 2500 });
      expect((await outbox([paymentId])).map((e) => e.event_type)).toEqual(['payment_succeeded']);
    }
  }, 90_000);

  /** A 1000 INR payment paid with success@upi on instance a. */
  const paidPayment = async (): Promise<string> => {
    const created = await callApi(a.baseUrl, 'POST', '/payments', {
      amount: 1000,
      currency: 'INR',
      confirm: true,
      payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'succeeded', amount_received: 1000 });
    return String(created.body['payment_id']);
  };

  /** Fires the refunds all at once across both instances; checks every answer is 200 succeeded or 400 ERR_4008. */
  const refundRace = async (paymentId: string, amounts: number[]) => {
    const results = await Promise.all(amounts.map((amount, i) => callApi(either(i), 'POST', '/refunds', { payment_id: paymentId, amount })));
    const succeeded: { amount: number; refundId: string }[] = [];
    const refused: number[] = [];
    results.forEach((result, i) => {
      const amount = amounts[i] as number;
      if (result.status === 200) {
        expect(result.body, JSON.stringify(result.body)).toMatchObject({ payment_id: paymentId, amount, status: 'succeeded' });
        succeeded.push({ amount, refundId: String(result.body['refund_id']) });
      } else {
        expect({ status: result.status, code: errorCode(result) }, JSON.stringify(result.body)).toEqual({ status: 400, code: 'ERR_4008' });
        refused.push(amount);
      }
    });
    // What is stored (read through each instance) is exactly what was acknowledged, and never more than received.
    for (const server of [a, b]) {
      const list = await callApi(server.baseUrl, 'POST', '/refunds/list', { payment_id: paymentId, start_time: '2000-01-01T00:00:00Z', limit: 100 });
      expect(list.status).toBe(200);
      const data = list.body['data'] as { refund_id: string; amount: number; status: string }[];
      expect(list.body['total_count']).toBe(succeeded.length);
      expect(new Set(data.map((r) => r.refund_id))).toEqual(new Set(succeeded.map((r) => r.refundId)));
      const stored = data.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
      expect(stored).toBeLessThanOrEqual(1000);
      const payment = await callApi(server.baseUrl, 'GET', `/payments/${paymentId}`);
      expect(payment.body).toMatchObject({ status: 'succeeded', amount_received: 1000 });
    }
    const events = await outbox(succeeded.map((r) => r.refundId));
    expect(events.map((e) => e.event_type)).toEqual(succeeded.map(() => 'refund_succeeded'));
    expect(new Set(events.map((e) => e.object_id))).toEqual(new Set(succeeded.map((r) => r.refundId)));
    return { succeeded, refused, total: succeeded.reduce((sum, r) => sum + r.amount, 0) };
  };

  test('20 concurrent refunds of 100 on a 1000 payment across both: 10 succeed, 10 ERR_4008', async () => {
    const paymentId = await paidPayment();
    const { succeeded, refused, total } = await refundRace(paymentId, Array(20).fill(100) as number[]);
    expect(succeeded).toHaveLength(10);
    expect(refused).toHaveLength(10);
    expect(total).toBe(1000);
    // Nothing is left: one more refund is refused on either instance.
    for (const server of [a, b]) {
      const more = await callApi(server.baseUrl, 'POST', '/refunds', { payment_id: paymentId, amount: 100 }); // 100 is the smallest INR refund
      expect({ status: more.status, code: errorCode(more) }).toEqual({ status: 400, code: 'ERR_4008' });
    }
  }, 60_000);

  test('concurrent refunds of mixed amounts that together exceed the payment: never more than received', async () => {
    for (let round = 0; round < 2; round += 1) {
      const paymentId = await paidPayment();
      // All at least 100 (the smallest INR refund); 5,595 in all against 1,000.
      const amounts = [700, 600, 550, 500, 450, 400, 350, 300, 250, 200, 180, 160, 150, 140, 130, 120, 110, 105, 100, 100];
      if (round === 1) amounts.reverse();
      const { succeeded, refused, total } = await refundRace(paymentId, amounts);
      expect(succeeded.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(1000);
      // The refunded sum only grows, so a refund refused at any moment cannot fit at the end either.
      for (const amount of refused) expect(total + amount, `refused ${amount} with ${total} refunded`).toBeGreaterThan(1000);
    }
  }, 60_000);

  test('50 concurrent settlements across both against one balance: exactly what it holds, never overdrawn', async () => {
    const created = await callApi(a.baseUrl, 'POST', '/collect/collections', {
      amount: '100.00',
      currency: 'KES',
      country: 'KE',
      method: 'mobile_money',
      customer_reference: 'race',
      phone_number: '+254700000001',
    });
    expect(created.status).toBe(200);
    const collectionId = String(created.body['collection_id']);
    // The simulated payer answers after 5 s and the credit follows 10 s later (docs/simulator.md, real clock here).
    const until = Date.now() + 40_000;
    let status = '';
    while (Date.now() < until && status !== 'credited') {
      await new Promise((r) => setTimeout(r, 500));
      status = String((await callApi(b.baseUrl, 'GET', `/collect/collections/${collectionId}`)).body['status']);
    }
    expect(status).toBe('credited');
    const minor = (text: unknown) => Math.round(Number(text) * 100);
    const kes = async () => {
      const balance = await callApi(a.baseUrl, 'GET', '/collect/balance');
      return (balance.body['by_corridor'] as { currency: string; available: string; held: string }[]).find((corridor) => corridor.currency === 'KES')!;
    };
    const start = await kes();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => callApi(either(i), 'POST', '/collect/settlements', { amount: '5.00', currency: 'KES', wallet: WALLET.address })),
    );
    expect(results.every((r) => r.status === 200 || r.status === 422), JSON.stringify(results.find((r) => r.status >= 500)?.body)).toBe(true);
    const accepted = results.filter((r) => r.status === 200).length;
    expect(accepted).toBe(Math.min(50, Math.floor(minor(start.available) / 500)));
    const after = await kes();
    expect(minor(after.available)).toBe(minor(start.available) - accepted * 500);
    expect(minor(after.held) + minor(after.available)).toBe(minor(start.held) + minor(start.available));
  }, 60_000);
  test('a key revoked on one instance is refused by the other at once; a rotated key keeps working on both', async () => {
    const noKey = { 'api-key': '' };
    const login = await callApi(a.baseUrl, 'POST', '/v1/sessions', { email: OPERATOR.email, password: OPERATOR.password }, noKey);
    expect(login.status).toBe(200);
    const session = { ...noKey, authorization: `Bearer ${String(login.body['session_token'])}` };
    const verified = await callApi(b.baseUrl, 'POST', '/v1/sessions/verify', { code: totpCode(OPERATOR.totpSecret, totpStep(new Date())) }, session);
    expect(verified.status).toBe(200);
    const created = await callApi(a.baseUrl, 'POST', '/v1/api-keys', { name: 'two instances' }, session);
    expect(created.status).toBe(200);
    const key = { 'api-key': String(created.body['api_key']) };
    expect((await callApi(b.baseUrl, 'GET', '/payments/list', undefined, key)).status).toBe(200);
    const rotated = await callApi(b.baseUrl, 'POST', `/v1/api-keys/${String(created.body['key_id'])}/rotate`, undefined, session);
    expect(rotated.status).toBe(200);
    const replacement = { 'api-key': String(rotated.body['api_key']) };
    for (const instance of [a, b]) {
      expect((await callApi(instance.baseUrl, 'GET', '/payments/list', undefined, key)).status).toBe(200);
      expect((await callApi(instance.baseUrl, 'GET', '/payments/list', undefined, replacement)).status).toBe(200);
    }
    // Warm both instances with the replacement, revoke it on a, and ask b straight after.
    expect((await callApi(a.baseUrl, 'DELETE', `/v1/api-keys/${String(rotated.body['key_id'])}`, undefined, session)).status).toBe(200);
    const refused = await callApi(b.baseUrl, 'GET', '/payments/list', undefined, replacement);
    expect(refused.status).toBe(401);
    expect(errorCode(refused)).toBe('ERR_1002');
    expect((await callApi(a.baseUrl, 'GET', '/payments/list', undefined, replacement)).status).toBe(401);
  }, 60_000);
  test('captures across both never exceed the authorization; a capture racing a void has one winner', async () => {
    const authorize = async (captureMethod: string) => {
      const created = await callApi(a.baseUrl, 'POST', '/payments', {
        amount: 10_000,
        currency: 'INR',
        capture_method: captureMethod,
        confirm: true,
        payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
      });
      expect(created.body['status']).toBe('requires_capture');
      return String(created.body['payment_id']);
    };
    const multiple = await authorize('manual_multiple');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => callApi(either(i), 'POST', `/payments/${multiple}/capture`, { amount_to_capture: 1_000 })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    for (const loser of results.filter((r) => r.status !== 200)) expect(['ERR_4003', 'ERR_4014']).toContain(errorCode(loser));
    expect((await callApi(b.baseUrl, 'GET', `/payments/${multiple}`)).body).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });

    for (let round = 0; round < 5; round += 1) {
      const payment = await authorize('manual');
      const [captured, voided] = await Promise.all([
        callApi(a.baseUrl, 'POST', `/payments/${payment}/capture`, {}),
        callApi(b.baseUrl, 'POST', `/payments/${payment}/cancel`, { cancellation_reason: 'race' }),
      ]);
      expect([captured.status, voided.status].filter((status) => status === 200)).toHaveLength(1);
      const final = (await callApi(a.baseUrl, 'GET', `/payments/${payment}`)).body['status'];
      expect(final).toBe(captured.status === 200 ? 'succeeded' : 'cancelled');
    }
  }, 60_000);
});
