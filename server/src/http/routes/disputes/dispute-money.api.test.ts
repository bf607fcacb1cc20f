/**
 * Disputes and refunds share a payment's captured money, on SQLite and PostgreSQL (forEachEngine): disputes together
 * never hold more than the captured amount minus refunds; a refund cannot take what an opened, challenged, lost or
 * accepted dispute holds (ERR_4008), a won one gives it back; cancel post capture is refused while a dispute holds
 * money (ERR_4003). Concurrent refunds, disputes and cancels post capture keep these rules, also when they arrive
 * at two server instances on one PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DisputeResponse } from '../../../../../protocol/api/disputes';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { RefundResponse } from '../../../../../protocol/api/refunds';
import type { Stores } from '../../../storage/stores';
import { createApp } from '../../../app';
import { compose } from '../../../compose';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { authenticateApiKey } from '../../../core/auth/auth';
import { raiseDispute } from '../../../core/disputes/raise-dispute';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import { cryptoIds } from '../../../kernel/ids';
import { createLogger } from '../../../logger';
import { migration0022DisputeHolds } from '../../../storage/migrations/0022-dispute-holds';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, memorySecretsFile, type Harness } from '../../../test-support/harness';

type Json = Record<string, unknown>;

/** UPI refunds, reports disputes and captures manually in test mode (RAIL_ACCOUNT_CONFIG). */
const SETTINGS: AccountSettings = {
  ...DEFAULT_ACCOUNT_SETTINGS,
  rails: DEFAULT_ACCOUNT_SETTINGS.rails.map((rail) =>
    rail.rail === 'upi' ? { ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, refunds: true, disputes: true, manualCapture: true } } } : rail,
  ),
};

const UPI = { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };

forEachEngine('Disputes and refunds share the captured amount', (engine) => {
  let h: Harness;
  /** Another server instance on the same database (PostgreSQL; on SQLite the same app). */
  let other: { app: Harness['app']; close: () => Promise<void> } | undefined;

  beforeAll(async () => {
    h = await createHarness(engine, { settings: SETTINGS });
    if (engine === 'postgres') {
      const dir = mkdtempSync(join(tmpdir(), 'rail-other-instance-'));
      const composed = await compose({
        databaseUrl: h.database.databaseUrl,
        sqliteFile: join(dir, 'unused.sqlite'),
        poolSize: 10,
        clock: h.clock,
        ids: cryptoIds,
        publicBaseUrl: 'http://127.0.0.1:8080',
        vaultKey: randomBytes(32),
        settings: SETTINGS,
        secretsFile: memorySecretsFile({ testSecretKey: h.secretKey, testPublishableKey: h.publishableKey }),
      });
      other = {
        app: createApp({ ...composed.core, logger: createLogger('silent'), publicBaseUrl: 'http://127.0.0.1:8080', publicJsUrl: 'http://127.0.0.1:8081', rateLimits: undefined }),
        close: async () => {
          await composed.store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
  });

  const request = (method: string, path: string, body?: unknown) => apiRequest(h, method, path, body === undefined ? {} : { body });
  /** The request at instance `n % 2`: alternating between two servers on PostgreSQL. */
  const requestAt = (n: number, method: string, path: string, body: unknown) =>
    apiRequest({ app: n % 2 === 1 && other !== undefined ? other.app : h.app, secretKey: h.secretKey }, method, path, { body });
  const paid = async (amount = 10_000) => expectOk<PaymentResponse>(await request('POST', '/payments', { amount, currency: 'INR', confirm: true, ...UPI }));
  /** A manual-capture payment, captured in full. */
  const captured = async (amount = 10_000) => {
    const authorized = await expectOk<PaymentResponse>(await request('POST', '/payments', { amount, currency: 'INR', confirm: true, capture_method: 'manual', ...UPI }));
    return expectOk<PaymentResponse>(await request('POST', `/payments/${authorized.payment_id}/capture`, {}));
  };
  const dispute = (paymentId: string, body: Json = {}) => request('POST', '/simulator/disputes', { payment_id: paymentId, ...body });
  const refund = (paymentId: string, body: Json = {}) => request('POST', '/refunds', { payment_id: paymentId, ...body });
  const decide = (disputeId: string, outcome: 'won' | 'lost') => request('POST', `/simulator/disputes/${disputeId}/outcome`, { outcome });
  /** The payment row's sums, as stored. */
  const sums = async (paymentId: string) => {
    const row = await h.db
      .selectFrom('payments')
      .select(['amount_refunded', 'amount_disputed'])
      .where('account_id', '=', h.boot.account.accountId)
      .where('mode', '=', 'test')
      .where('payment_id', '=', paymentId)
      .executeTakeFirstOrThrow();
    return { refunded: Number(row.amount_refunded), disputed: Number(row.amount_disputed) };
  };

  describe(`[${engine}] disputes`, () => {
    test('disputes together hold at most the captured amount; the default is what is left', async () => {
      const payment = await paid(10_000);
      expect(await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 6000 }))).toMatchObject({ amount: '6000' });
      const error = await expectApiError(await dispute(payment.payment_id, { amount: 4001 }), 'ERR_2003', 'amount');
      expect(String(error['message'])).toContain('(4000)');
      expect(await expectOk<DisputeResponse>(await dispute(payment.payment_id))).toMatchObject({ amount: '4000' });
      await expectApiError(await dispute(payment.payment_id), 'ERR_2003', 'amount');
      await expectApiError(await dispute(payment.payment_id, { amount: 1 }), 'ERR_2003', 'amount');
      expect(await sums(payment.payment_id)).toEqual({ refunded: 0, disputed: 10_000 });
    });

    test('after refunds, only the rest can be disputed', async () => {
      const payment = await paid(10_000);
      await expectOk(await refund(payment.payment_id, { amount: 3000 }));
      await expectApiError(await dispute(payment.payment_id, { amount: 7001 }), 'ERR_2003', 'amount');
      expect(await expectOk<DisputeResponse>(await dispute(payment.payment_id))).toMatchObject({ amount: '7000', is_already_refunded: true });
    });

    test('is_already_refunded counts a refund reserved between the dispute\'s first read and its hold', async () => {
      const payment = await paid(10_000);
      const real = h.core.store;
      // The dispute's read of the refunded sum, outside its transaction, is answered before a refund lands.
      const refunds = new Proxy(real.refunds, {
        get: (target, property) =>
          property === 'findRefundedAmount'
            ? async (...args: Parameters<Stores['refunds']['findRefundedAmount']>) => {
                const before = await target.findRefundedAmount(...args);
                await expectOk(await refund(payment.payment_id, { amount: 1000 }));
                return before;
              }
            : (Reflect.get(target, property, target) as unknown),
      });
      const store = new Proxy(real, {
        get: (target, property) => {
          if (property === 'refunds') return refunds;
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const auth = await authenticateApiKey(h.core, h.secretKey);
      const raised = await raiseDispute({ ...h.core, store }, auth, { payment_id: payment.payment_id, amount: 9000 });
      expect(raised.isAlreadyRefunded).toBe(true);
      expect(await sums(payment.payment_id)).toEqual({ refunded: 1000, disputed: 9000 });
    });

    test('a re-run under its Idempotency-Key after a crash that followed the commit answers the dispute it made', async () => {
      const payment = await paid(10_000);
      const send = () => apiRequest(h, 'POST', '/simulator/disputes', { body: { payment_id: payment.payment_id }, headers: { 'idempotency-key': `dispute-rerun-${engine}` } });
      const first = await expectOk<DisputeResponse>(await send());
      // The process died after the dispute's commit, before its answer was stored: the claim is in flight, its lease over.
      await h.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
        .where('idempotency_key', '=', `dispute-rerun-${engine}`)
        .execute();
      expect(await expectOk<DisputeResponse>(await send())).toMatchObject({ dispute_id: first.dispute_id, amount: '10000' });
      expect(await sums(payment.payment_id)).toEqual({ refunded: 0, disputed: 10_000 });
    });

    test('a won dispute gives its amount back: it can be disputed again', async () => {
      const payment = await paid(10_000);
      const first = await expectOk<DisputeResponse>(await dispute(payment.payment_id));
      await expectApiError(await dispute(payment.payment_id, { amount: 100 }), 'ERR_2003', 'amount');
      await expectOk(await decide(first.dispute_id, 'won'));
      expect(await sums(payment.payment_id)).toEqual({ refunded: 0, disputed: 0 });
      expect(await expectOk<DisputeResponse>(await dispute(payment.payment_id))).toMatchObject({ amount: '10000' });
    });
  });

  describe(`[${engine}] refunds`, () => {
    test('a refund cannot take what an opened, challenged, lost or accepted dispute holds (ERR_4008)', async () => {
      const settle: Record<string, (disputeId: string) => Promise<Response>> = {
        opened: async () => new Response(),
        challenged: (disputeId) => request('POST', '/disputes/evidence', { dispute_id: disputeId, uncategorized_text: 'delivered' }),
        lost: (disputeId) => decide(disputeId, 'lost'),
        accepted: (disputeId) => request('POST', `/disputes/accept/${disputeId}`),
      };
      for (const [status, move] of Object.entries(settle)) {
        const payment = await paid(10_000);
        const held = await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 4000 }));
        expect((await move(held.dispute_id)).status, status).toBe(200);
        const error = await expectApiError(await refund(payment.payment_id, { amount: 10_000 }), 'ERR_4008', 'amount');
        expect(String(error['message']), status).toContain('(6000); 4000 of the payment is held by its disputes');
        await expectApiError(await refund(payment.payment_id, { amount: 6001 }), 'ERR_4008', 'amount');
        expect(await expectOk<RefundResponse>(await refund(payment.payment_id, { amount: 6000 }))).toMatchObject({ amount: 6000, status: 'succeeded' });
        await expectApiError(await refund(payment.payment_id, { amount: 100 }), 'ERR_4008', 'amount');
        expect(await sums(payment.payment_id), status).toEqual({ refunded: 6000, disputed: 4000 });
      }
    });

    test('once the dispute is won, its amount is refundable again', async () => {
      const payment = await paid(10_000);
      const held = await expectOk<DisputeResponse>(await dispute(payment.payment_id));
      await expectApiError(await refund(payment.payment_id), 'ERR_4008', 'amount');
      await expectOk(await decide(held.dispute_id, 'won'));
      expect(await expectOk<RefundResponse>(await refund(payment.payment_id))).toMatchObject({ amount: 10_000, status: 'succeeded' });
    });
  });

  describe(`[${engine}] cancel post capture`, () => {
    test('refused while a dispute is opened, and after it was lost or accepted; allowed once it was won', async () => {
      for (const [ending, expected] of [
        [undefined, 'refused'],
        ['lost', 'refused'],
        ['accepted', 'refused'],
        ['won', 'cancelled_post_capture'],
      ] as const) {
        const payment = await captured();
        const held = await expectOk<DisputeResponse>(await dispute(payment.payment_id));
        if (ending === 'accepted') await expectOk(await request('POST', `/disputes/accept/${held.dispute_id}`));
        else if (ending !== undefined) await expectOk(await decide(held.dispute_id, ending));
        const response = await request('POST', `/payments/${payment.payment_id}/cancel_post_capture`, {});
        if (expected === 'refused') {
          const error = await expectApiError(response, 'ERR_4003');
          expect(String(error['message'])).toContain('held by a dispute');
          expect((await expectOk<PaymentResponse>(await request('GET', `/payments/${payment.payment_id}`))).status).toBe('succeeded');
        } else {
          expect((await expectOk<PaymentResponse>(response)).status).toBe(expected);
        }
      }
    });
  });

  describe(`[${engine}] concurrency${engine === 'postgres' ? ' (two instances)' : ''}`, () => {
    test('concurrent disputes and refunds of 2000 on a 10000 payment: exactly five succeed; the sums match them', async () => {
      const payment = await paid(10_000);
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, n) =>
          n % 4 < 2
            ? requestAt(n, 'POST', '/simulator/disputes', { payment_id: payment.payment_id, amount: 2000 })
            : requestAt(n, 'POST', '/refunds', { payment_id: payment.payment_id, amount: 2000 }),
        ),
      );
      const won = responses.filter((response) => response.status === 200);
      expect(won).toHaveLength(5);
      const refused = await Promise.all(responses.filter((response) => response.status !== 200).map(async (response) => ((await response.json()) as { error: { code: string } }).error.code));
      expect(new Set(refused)).toEqual(new Set(refused.filter((code) => code === 'ERR_2003' || code === 'ERR_4008')));
      const disputes = await expectOk<DisputeResponse[]>(await request('GET', `/disputes/list?payment_id=${payment.payment_id}&limit=100`));
      const refunds = (await expectOk<{ data: RefundResponse[] }>(await request('POST', '/refunds/list', { start_time: '2020-01-01T00:00:00Z', payment_id: payment.payment_id, limit: 100 }))).data;
      expect(disputes.length + refunds.length).toBe(5);
      expect(await sums(payment.payment_id)).toEqual({ refunded: 2000 * refunds.length, disputed: 2000 * disputes.length });
    });

    test('a dispute racing a cancel post capture: exactly one wins', async () => {
      for (let round = 0; round < 4; round += 1) {
        const payment = await captured();
        const [raised, cancelled] = await Promise.all([
          requestAt(round, 'POST', '/simulator/disputes', { payment_id: payment.payment_id }),
          requestAt(round + 1, 'POST', `/payments/${payment.payment_id}/cancel_post_capture`, {}),
        ]);
        expect([raised.status, cancelled.status].sort()).toEqual([200, 400]);
        const after = await expectOk<PaymentResponse>(await request('GET', `/payments/${payment.payment_id}`));
        const disputes = await expectOk<DisputeResponse[]>(await request('GET', `/disputes/list?payment_id=${payment.payment_id}`));
        if (raised.status === 200) {
          await expectApiError(cancelled, 'ERR_4003');
          expect(after.status).toBe('succeeded');
          expect(disputes).toHaveLength(1);
        } else {
          await expectApiError(raised, 'ERR_4003');
          expect(after.status).toBe('cancelled_post_capture');
          expect(disputes).toEqual([]);
        }
      }
    });
  });

  describe(`[${engine}] migration 0022`, () => {
    // Last: it drops and adds the column again under the running server.
    test('fills amount_disputed from the disputes already stored: opened, challenged, lost and accepted hold; won does not', async () => {
      const payment = await paid(10_000);
      const won = await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 1000 }));
      await expectOk(await decide(won.dispute_id, 'won'));
      const challenged = await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 2000 }));
      await expectOk(await request('POST', '/disputes/evidence', { dispute_id: challenged.dispute_id, uncategorized_text: 'delivered' }));
      const accepted = await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 3000 }));
      await expectOk(await request('POST', `/disputes/accept/${accepted.dispute_id}`));
      const lost = await expectOk<DisputeResponse>(await dispute(payment.payment_id, { amount: 400 }));
      await expectOk(await decide(lost.dispute_id, 'lost'));
      await expectOk(await dispute(payment.payment_id, { amount: 500 }));
      const untouched = await paid(5000);
      const db = h.db as unknown as Parameters<typeof migration0022DisputeHolds.up>[0];
      await migration0022DisputeHolds.down!(db);
      await migration0022DisputeHolds.up(db);
      expect(await sums(payment.payment_id)).toEqual({ refunded: 0, disputed: 5900 });
      expect(await sums(untouched.payment_id)).toEqual({ refunded: 0, disputed: 0 });
    });
  });
});
