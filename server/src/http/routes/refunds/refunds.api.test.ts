/**
 * The refunds API suite (issue 3), through app.request() (no port). Runs on SQLite and PostgreSQL
 * (forEachEngine): the success paths, every named error, and the concurrency rule (the
 * sum of non-failed refunds never exceeds the captured amount).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR_CATALOG } from '../../../../../protocol/errors';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { RefundListResponse, RefundResponse } from '../../../../../protocol/api/refunds';
import type { Mode } from '../../../../../protocol/ids';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';
import { StuckObjectRecovery } from '../../../core/recovery/recover-stuck-objects';
import { DEFAULT_RECOVERY_POLICY } from '../../../core/shared/deps';
import type { AccountSettings } from '../../../kernel/account-settings-types';
import { SIMULATOR_REFUND_REASONS } from '../../../rails/simulator/upi-simulator';
import type { Engine } from '../../../storage/database';
import type { PaymentRecord } from '../../../storage/payments/records';
import { apiRequest, expectApiError, insertLiveSecretKey, expectOk } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';

type Json = Record<string, unknown>;

const UPI = (vpa: string) => ({ upi: { upi_collect: { vpa_id: vpa } } });

forEachEngine('Refunds API', (engine) => {
  let h: Harness;
  let liveSecretKey: string;
  let sequence = 0;

  beforeAll(async () => {
    h = await createHarness(engine, { poolSize: 10 });
    liveSecretKey = await insertLiveSecretKey(h, { fill: 'R', keyId: 'key_live_refunds_tests' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: { key?: string | null; body?: unknown } = {}) => apiRequest(h, method, path, options);
  const expectError = expectApiError;
  const ok = expectOk;
  /** A test-mode INR payment paid with success@upi (amount_received = amount). */
  const paidPayment = async (amount = 10_000): Promise<PaymentResponse> => {
    const payment = await ok<PaymentResponse>(
      await request('POST', '/payments', { body: { amount, currency: 'INR', confirm: true, payment_method_data: UPI('success@upi') } }),
    );
    expect(payment.status).toBe('succeeded');
    return payment;
  };
  const refund = (body: Json, key?: string) => request('POST', '/refunds', { key, body });
  const scope = (mode: Mode = 'test') => ({ accountId: h.boot.account.accountId, mode });
  /** A succeeded payment written straight to the store (for rails and modes the API cannot pay on today). */
  const storedPayment = async (mode: Mode, rail: string, overrides: Partial<PaymentRecord> = {}): Promise<PaymentRecord> => {
    sequence += 1;
    const now = h.clock.now();
    const payment: PaymentRecord = {
      ...scope(mode),
      paymentId: `pay_stored_${engine}_${sequence}`,
      profileId: h.boot.profile.profileId,
      status: 'succeeded',
      amount: 5000,
      currency: rail === 'crypto' ? 'EUR' : 'INR',
      amountCapturable: 0,
      amountReceived: 5000,
      amountToCapture: null,
      shippingCost: null,
      orderTaxAmount: null,
      captureMethod: 'automatic',
      customerId: null,
      description: null,
      returnUrl: null,
      setupFutureUsage: null,
      paymentMethod: rail === 'crypto' ? 'crypto' : 'upi',
      paymentMethodType: null,
      paymentMethodData: null,
      metadata: null,
      merchantOrderReferenceId: null,
      clientSecret: `pay_stored_${sequence}_secret_AAAAAAAAAAAAAAAAAAAA`,
      clientSecretExpiresAt: new Date(now.getTime() + 900_000),
      nextAction: null,
      errorCode: null,
      errorMessage: null,
      errorReason: null,
      rail,
      connector: `${rail}_provider`,
      railReference: 'ref_x',
      railState: null,
      requestFingerprint: 'x',
      requestFields: {},
      version: 1,
      createdAt: now,
      updatedAt: now,
      ...overrides,
    };
    expect(await h.store.payments.insertPayment(payment)).toBe('inserted');
    return payment;
  };
  const events = (objectId: string) => h.store.outbox.listEventsForObject(scope(), objectId);
  const list = (body: Json, key?: string) => request('POST', '/refunds/list', { key, body });
  const START = '2000-01-01T00:00:00Z';

  describe(`[${engine}] create refund`, () => {
    test('without a refund_id, a re-run under its Idempotency-Key after a crash that followed the commit answers the refund it made', async () => {
      const payment = await paidPayment();
      const key = `refund-rerun-${engine}`;
      const send = () => apiRequest(h, 'POST', '/refunds', { body: { payment_id: payment.payment_id }, headers: { 'idempotency-key': key } });
      const first = await ok<RefundResponse>(await send());
      // The process died after the refund's commit, before its answer was stored: the claim is in flight, its lease over.
      await h.db
        .updateTable('idempotency_keys')
        .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: '2000-01-01T00:00:00.000Z' })
        .where('idempotency_key', '=', key)
        .execute();
      expect(await ok<RefundResponse>(await send())).toMatchObject({ refund_id: first.refund_id, amount: 10_000 });
      const stored = await h.store.refunds.listRefundsOfPayment(scope(), payment.payment_id, 10);
      expect(stored.map((row) => row.refundId)).toEqual([first.refund_id]);
    });

    test('a full refund by default: succeeded at once, ref_ id, refund_succeeded event; the payment stays succeeded', async () => {
      const payment = await paidPayment();
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, reason: 'requested_by_customer' }));
      expect(created).toMatchObject({
        payment_id: payment.payment_id,
        amount: 10_000,
        currency: 'INR',
        status: 'succeeded',
        reason: 'requested_by_customer',
        metadata: null,
        error_code: null,
        error_message: null,
        unified_code: null,
        unified_message: null,
        refund_type: 'instant',
        connector: 'upi_simulator',
        profile_id: payment.profile_id,
      });
      expect(created.refund_id).toMatch(/^ref_[A-Za-z0-9]{20}$/);
      expect(created.created_at).toBe(h.clock.now().toISOString());

      const outbox = await events(created.refund_id);
      expect(outbox.map((e) => e.eventType)).toEqual(['refund_succeeded']);
      expect(outbox[0]?.objectType).toBe('refund');
      expect(outbox[0]?.payload).toMatchObject({
        event_type: 'refund_succeeded',
        mode: 'test',
        content: { type: 'refund_details', object: { refund_id: created.refund_id, status: 'succeeded', amount: 10_000 } },
      });

      const after = await ok<PaymentResponse>(await request('GET', `/payments/${payment.payment_id}`));
      expect(after).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    });

    test('partial refunds repeat until the captured amount is used; then an over-amount attempt is ERR_4008', async () => {
      const payment = await paidPayment(1000);
      for (const amount of [300, 300, 100]) {
        const partial = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount, refund_type: 'scheduled' }));
        expect(partial).toMatchObject({ amount, status: 'succeeded', refund_type: 'scheduled' });
      }
      await expectError(await refund({ payment_id: payment.payment_id, amount: 301 }), 'ERR_4008', 'amount');
      // Omitting amount refunds what is left.
      const rest = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id }));
      expect(rest.amount).toBe(300);
      await expectError(await refund({ payment_id: payment.payment_id, amount: 100 }), 'ERR_4008', 'amount');
      await expectError(await refund({ payment_id: payment.payment_id }), 'ERR_4008', 'amount');
      const page = await ok<RefundListResponse>(await list({ start_time: START, payment_id: payment.payment_id }));
      expect(page.total_count).toBe(4);
      expect(page.data.reduce((sum, r) => sum + r.amount, 0)).toBe(1000);
    });

    test('a refund above the captured amount at once: ERR_4008', async () => {
      const payment = await paidPayment(1000);
      await expectError(await refund({ payment_id: payment.payment_id, amount: 1001 }), 'ERR_4008', 'amount');
    });

    test('refund_id idempotency: same id and body returns the stored refund (refunded once); another body is 409 ERR_4009', async () => {
      const payment = await paidPayment(1000);
      const body = { payment_id: payment.payment_id, refund_id: `rf-${engine}-idem`, amount: 600, metadata: { order: 'A-1' } };
      const first = await ok<RefundResponse>(await refund(body));
      const again = await ok<RefundResponse>(await refund({ metadata: { order: 'A-1' }, amount: 600, refund_id: body.refund_id, payment_id: body.payment_id }));
      expect(again).toEqual(first);
      // Only one reservation: 400 is still refundable, 401 is not.
      await expectError(await refund({ payment_id: payment.payment_id, amount: 401 }), 'ERR_4008');
      await expectError(await refund({ ...body, amount: 500 }), 'ERR_4009', 'refund_id');
      await expectError(await refund({ ...body, reason: 'other' }), 'ERR_4009', 'refund_id');
      expect((await events(first.refund_id)).map((e) => e.eventType)).toEqual(['refund_succeeded']);
    });

    test('concurrent creates with one refund_id store one refund and refund once', async () => {
      const payment = await paidPayment(1000);
      const body = { payment_id: payment.payment_id, refund_id: `rf-${engine}-race`, amount: 200 };
      const responses = await Promise.all(Array.from({ length: 8 }, () => refund(body)));
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<RefundResponse>));
      expect(new Set(bodies.map((b) => b.refund_id))).toEqual(new Set([body.refund_id]));
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(200);
    });

    test('concurrent creates with one refund_id of the whole amount: every identical one gets the refund, another body ERR_4009', async () => {
      const payment = await paidPayment(1000);
      const body = { payment_id: payment.payment_id, refund_id: `rf-${engine}-race-whole`, amount: 1000 };
      // The first reservation leaves nothing for the others, whose own reservations fail before their inserts.
      const responses = await Promise.all([...Array.from({ length: 6 }, () => refund(body)), refund({ ...body, reason: 'other' })]);
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<RefundResponse & { error?: { code: string } }>));
      // Whichever body's reservation lands first is the refund: the identical ones (sent first, and usually first) all
      // get it and the other body ERR_4009, or, when the other body's lands first, the other way round.
      const identicalWon = responses[6]?.status !== 200;
      const outcome = (index: number) => (index < 6 === identicalWon ? 200 : 409);
      expect(responses.map((r) => r.status), JSON.stringify(bodies)).toEqual(responses.map((_, index) => outcome(index)));
      for (const [index, answer] of bodies.entries()) {
        if (outcome(index) === 200) expect(answer.refund_id).toBe(body.refund_id);
        else expect(answer.error?.code).toBe('ERR_4009');
      }
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(1000);
    });

    test('an unknown payment: 404 ERR_4001', async () => {
      await expectError(await refund({ payment_id: 'pay_does_not_exist' }), 'ERR_4001', 'payment_id');
    });

    test('a payment that has not succeeded: ERR_4003 (created, failed, waiting)', async () => {
      const created = await ok<PaymentResponse>(await request('POST', '/payments', { body: { amount: 1000, currency: 'INR' } }));
      await expectError(await refund({ payment_id: created.payment_id }), 'ERR_4003');
      const failed = await ok<PaymentResponse>(
        await request('POST', '/payments', { body: { amount: 1000, currency: 'INR', confirm: true, payment_method_data: UPI('failure@upi') } }),
      );
      expect(failed.status).toBe('failed');
      await expectError(await refund({ payment_id: failed.payment_id, amount: 100 }), 'ERR_4003');
      const waiting = await ok<PaymentResponse>(
        await request('POST', '/payments', { body: { amount: 1000, currency: 'INR', confirm: true, payment_method_data: UPI('pending@upi') } }),
      );
      expect(waiting.status).toBe('requires_customer_action');
      await expectError(await refund({ payment_id: waiting.payment_id, amount: 100 }), 'ERR_4003');
    });

    test('a partially_captured payment can be refunded up to amount_received', async () => {
      const payment = await storedPayment('test', 'upi', { status: 'partially_captured', amountReceived: 3000 });
      await expectError(await refund({ payment_id: payment.paymentId, amount: 3001 }), 'ERR_4008');
      const full = await ok<RefundResponse>(await refund({ payment_id: payment.paymentId }));
      expect(full).toMatchObject({ amount: 3000, status: 'succeeded' });
    });

    test('live mode: refused with ERR_4011 (no enabled rail refunds live payments)', async () => {
      const payment = await storedPayment('live', 'upi');
      await expectError(await refund({ payment_id: payment.paymentId }, liveSecretKey), 'ERR_4011');
      expect(await h.store.refunds.findRefundedAmount(scope('live'), payment.paymentId)).toBe(0);
    });

    test('test mode on a rail without the refunds capability: ERR_4030', async () => {
      const payment = await storedPayment('test', 'crypto');
      await expectError(await refund({ payment_id: payment.paymentId }), 'ERR_4030');
    });

    test('live mode: ERR_4011 before any look-up, for any payment_id (no rail of the account refunds live)', async () => {
      const payment = await paidPayment(1000);
      await expectError(await refund({ payment_id: payment.payment_id }, liveSecretKey), 'ERR_4011');
      await expectError(await refund({ payment_id: 'pay_nowhere', amount: 100 }, liveSecretKey), 'ERR_4011');
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(0);
    });

    test('the rail fails the refund: failed, error fields set, refund_failed event, amount given back', async () => {
      const payment = await paidPayment(1000);
      const failed = await ok<RefundResponse>(
        await refund({ payment_id: payment.payment_id, amount: 1000, reason: SIMULATOR_REFUND_REASONS.failure }),
      );
      expect(failed).toMatchObject({ status: 'failed', error_code: 'SIM_REFUND_DECLINED', error_message: 'Refund declined by the simulated rail' });
      const outbox = await events(failed.refund_id);
      expect(outbox.map((e) => e.eventType)).toEqual(['refund_failed']);
      expect(outbox[0]?.payload).toMatchObject({ content: { type: 'refund_details', object: { status: 'failed' } } });
      // A failed refund does not count: the whole amount can still be refunded.
      const full = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id }));
      expect(full).toMatchObject({ amount: 1000, status: 'succeeded' });
    });

    test('the rail holds the refund for review: review, its refund_review event (as when recovery parks one), and it counts toward the refunded sum', async () => {
      const payment = await paidPayment(1000);
      const held = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 700, reason: SIMULATOR_REFUND_REASONS.review }));
      expect(held.status).toBe('review');
      const outbox = await events(held.refund_id);
      expect(outbox.map((e) => e.eventType)).toEqual(['refund_review']);
      expect(outbox[0]?.payload).toMatchObject({ event_type: 'refund_review', content: { type: 'refund_details', object: held } });
      await expectError(await refund({ payment_id: payment.payment_id, amount: 301 }), 'ERR_4008');
      expect((await ok<RefundResponse>(await refund({ payment_id: payment.payment_id }))).amount).toBe(300);
    });

    test.each<[string, Json, keyof typeof ERROR_CATALOG, string]>([
      ['payment_id missing', {}, 'ERR_2001', 'payment_id'],
      ['payment_id empty', { payment_id: '' }, 'ERR_2003', 'payment_id'],
      ['payment_id too long', { payment_id: 'p'.repeat(63) }, 'ERR_2003', 'payment_id'],
      ['amount below 100', { payment_id: 'pay_x', amount: 99 }, 'ERR_2003', 'amount'],
      ['amount not an integer', { payment_id: 'pay_x', amount: 150.5 }, 'ERR_2003', 'amount'],
      ['refund_id too long', { payment_id: 'pay_x', refund_id: 'r'.repeat(65) }, 'ERR_2003', 'refund_id'],
      ['refund_id empty', { payment_id: 'pay_x', refund_id: '' }, 'ERR_2003', 'refund_id'],
      ['refund_id with a slash', { payment_id: 'pay_x', refund_id: 'a/b' }, 'ERR_2003', 'refund_id'],
      ['refund_id "list", the path of the list operation', { payment_id: 'pay_x', refund_id: 'list' }, 'ERR_2003', 'refund_id'],
      ['reason too long', { payment_id: 'pay_x', reason: 'x'.repeat(256) }, 'ERR_2003', 'reason'],
      ['merchant_id too long', { payment_id: 'pay_x', merchant_id: 'm'.repeat(256) }, 'ERR_2003', 'merchant_id'],
      ['refund_type unknown', { payment_id: 'pay_x', refund_type: 'later' }, 'ERR_2003', 'refund_type'],
      ['metadata with too many keys', { payment_id: 'pay_x', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'ERR_2003', 'metadata'],
      ['metadata value too long', { payment_id: 'pay_x', metadata: { note: 'x'.repeat(501) } }, 'ERR_2003', 'metadata.note'],
      ['merchant_connector_details not an object', { payment_id: 'pay_x', merchant_connector_details: 'x' }, 'ERR_2003', 'merchant_connector_details'],
      ['all_keys_required not a boolean', { payment_id: 'pay_x', all_keys_required: 'yes' }, 'ERR_2003', 'all_keys_required'],
      ['an unknown field', { payment_id: 'pay_x', split_refunds: {} }, 'ERR_2004', 'split_refunds'],
    ])('validation: %s', async (_name, body, code, field) => {
      await expectError(await refund(body), code, field);
    });

    test('every request field at its limit is accepted', async () => {
      const payment = await paidPayment(1000);
      const created = await ok<RefundResponse>(
        await refund({
          payment_id: payment.payment_id,
          refund_id: `x${'9'.repeat(63)}`.slice(0, 64).replace(/^x/, engine === 'sqlite' ? 's' : 'p'),
          merchant_id: 'm'.repeat(255),
          amount: 100,
          reason: 'r'.repeat(255),
          refund_type: 'instant',
          metadata: { note: 'x'.repeat(500) },
          merchant_connector_details: { creds: {} },
          all_keys_required: true,
        }),
      );
      expect(created).toMatchObject({ amount: 100, reason: 'r'.repeat(255), metadata: { note: 'x'.repeat(500) } });
      expect(created.refund_id).toHaveLength(64);
    });

    test('keys: none is ERR_1001, a publishable key is ERR_1003', async () => {
      await expectError(await refund({ payment_id: 'pay_x' }, null as unknown as string), 'ERR_1001');
      await expectError(await refund({ payment_id: 'pay_x' }, h.publishableKey), 'ERR_1003');
      await expectError(await request('GET', '/refunds/ref_x', { key: h.publishableKey }), 'ERR_1003');
      await expectError(await list({ start_time: START }, h.publishableKey), 'ERR_1003');
    });
  });

  describe(`[${engine}] capabilities as account data`, () => {
    /** The default account with UPI refunds switched on in live mode too (but no live UPI adapter is wired). */
    const liveRefundsOn: AccountSettings = {
      ...DEFAULT_ACCOUNT_SETTINGS,
      rails: DEFAULT_ACCOUNT_SETTINGS.rails.map((rail) =>
        rail.rail === 'upi' ? { ...rail, capabilities: { ...rail.capabilities, live: { ...rail.capabilities.live, refunds: true } } } : rail,
      ),
    };
    /** An account on which no rail refunds, not even in test mode. */
    const noRefunds: AccountSettings = {
      ...DEFAULT_ACCOUNT_SETTINGS,
      rails: DEFAULT_ACCOUNT_SETTINGS.rails.map((rail) => ({ ...rail, capabilities: { ...rail.capabilities, test: { ...rail.capabilities.test, refunds: false } } })),
    };

    test('live refunds switched on for UPI: a live UPI payment needs a provisioned rail (ERR_3010); a live crypto payment is ERR_4011', async () => {
      await h.store.accounts.updateAccountSettings(h.boot.account.accountId, liveRefundsOn);
      try {
        const upi = await storedPayment('live', 'upi');
        await expectError(await refund({ payment_id: upi.paymentId }, liveSecretKey), 'ERR_3010');
        const crypto = await storedPayment('live', 'crypto');
        await expectError(await refund({ payment_id: crypto.paymentId }, liveSecretKey), 'ERR_4011');
        await expectError(await refund({ payment_id: 'pay_nowhere' }, liveSecretKey), 'ERR_4001', 'payment_id');
      } finally {
        await h.store.accounts.updateAccountSettings(h.boot.account.accountId, DEFAULT_ACCOUNT_SETTINGS);
      }
    });

    test('test refunds switched off on every rail: ERR_4030 before any look-up', async () => {
      const payment = await paidPayment(1000);
      await h.store.accounts.updateAccountSettings(h.boot.account.accountId, noRefunds);
      try {
        await expectError(await refund({ payment_id: payment.payment_id }), 'ERR_4030');
        await expectError(await refund({ payment_id: 'pay_nowhere' }), 'ERR_4030');
      } finally {
        await h.store.accounts.updateAccountSettings(h.boot.account.accountId, DEFAULT_ACCOUNT_SETTINGS);
      }
      expect((await ok<RefundResponse>(await refund({ payment_id: payment.payment_id }))).status).toBe('succeeded');
    });
  });

  describe(`[${engine}] retrieve and update refund`, () => {
    test('GET /refunds/{refund_id} returns the refund; unknown is 404 ERR_4007; the live key does not see it', async () => {
      const payment = await paidPayment(1000);
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 250 }));
      expect(await ok<RefundResponse>(await request('GET', `/refunds/${created.refund_id}`))).toEqual(created);
      await expectError(await request('GET', '/refunds/ref_unknown'), 'ERR_4007');
      await expectError(await request('GET', `/refunds/${created.refund_id}`, { key: liveSecretKey }), 'ERR_4007');
      await expectError(await request('GET', `/refunds/${'r'.repeat(65)}`), 'ERR_2003', 'refund_id');
    });

    test('POST /refunds/{refund_id} sets reason and replaces metadata; status and amount stay', async () => {
      const payment = await paidPayment(1000);
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 250, metadata: { a: '1', b: '2' } }));
      h.clock.advance(1000);
      const updated = await ok<RefundResponse>(
        await request('POST', `/refunds/${created.refund_id}`, { body: { reason: 'duplicate', metadata: { c: '3' } } }),
      );
      expect(updated).toMatchObject({ refund_id: created.refund_id, status: 'succeeded', amount: 250, reason: 'duplicate', metadata: { c: '3' } });
      expect(updated.updated_at).not.toBe(created.updated_at);
      expect(updated.created_at).toBe(created.created_at);
      const onlyReason = await ok<RefundResponse>(await request('POST', `/refunds/${created.refund_id}`, { body: { reason: 'fraudulent' } }));
      expect(onlyReason).toMatchObject({ reason: 'fraudulent', metadata: { c: '3' } });
      const unchanged = await ok<RefundResponse>(await request('POST', `/refunds/${created.refund_id}`, { body: {} }));
      expect(unchanged).toEqual(onlyReason);
      expect(await ok<RefundResponse>(await request('GET', `/refunds/${created.refund_id}`))).toEqual(onlyReason);
    });

    test('update errors: unknown refund ERR_4007, unknown field ERR_2004, limits ERR_2003', async () => {
      const payment = await paidPayment(1000);
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 100 }));
      await expectError(await request('POST', '/refunds/ref_unknown', { body: { reason: 'x' } }), 'ERR_4007');
      await expectError(await request('POST', '/refunds/ref_unknown', { body: {} }), 'ERR_4007');
      await expectError(await request('POST', `/refunds/${created.refund_id}`, { body: { amount: 200 } }), 'ERR_2004', 'amount');
      await expectError(await request('POST', `/refunds/${created.refund_id}`, { body: { reason: 'x'.repeat(256) } }), 'ERR_2003', 'reason');
      await expectError(
        await request('POST', `/refunds/${created.refund_id}`, { body: { metadata: { ['k'.repeat(41)]: 'v' } } }),
        'ERR_2003',
      );
      await expectError(await request('POST', `/refunds/${created.refund_id}`, { body: { reason: 'x' }, key: liveSecretKey }), 'ERR_4007');
    });

    test('a metadata key named __proto__ is refused on create and update (ERR_2003 naming it), never dropped', async () => {
      const payment = await paidPayment(1000);
      const withProto = (fields: string) => `{${fields}, "metadata": {"order": "A-1", "__proto__": {"admin": true}}}`;
      const refused = await expectError(
        await apiRequest(h, 'POST', '/refunds', { raw: withProto(`"payment_id": "${payment.payment_id}", "amount": 100`) }),
        'ERR_2003',
        'metadata.__proto__',
      );
      expect(refused['message']).toBe('Invalid body field metadata.__proto__: metadata key names may not be "__proto__".');
      expect(await h.store.refunds.listRefundsOfPayment(scope(), payment.payment_id, 10)).toEqual([]);

      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 100, metadata: { order: 'A-1' } }));
      await expectError(await apiRequest(h, 'POST', `/refunds/${created.refund_id}`, { raw: withProto('"reason": "x"') }), 'ERR_2003', 'metadata.__proto__');
      expect(await ok<RefundResponse>(await request('GET', `/refunds/${created.refund_id}`))).toEqual(created);
    });
  });

  describe(`[${engine}] force_sync and recovery`, () => {
    const retrieve = async (refundId: string, forceSync = false) =>
      ok<RefundResponse>(await request('GET', `/refunds/${refundId}${forceSync ? '?force_sync=true' : ''}`));
    /** A refund the rail took (and decided) while its answers never came back: recovery parks it in review at its deadline. */
    /** A refund whose rail call failed (`fault`) and whose rail never answered a look-up: recovery parks it in review. */
    const parkedRefund = async (body: Json, fault: 'throw_after_accept' | 'throw_before_accept' = 'throw_after_accept'): Promise<RefundResponse> => {
      h.faults.inject(fault, { call: 'refund', rail: 'upi' });
      h.faults.inject('throw_before_accept', { call: 'lookup', rail: 'upi', times: 1000 });
      try {
        const created = await ok<RefundResponse>(await refund(body));
        expect(created.status).toBe('pending');
        h.clock.advance(DEFAULT_RECOVERY_POLICY.deadlineMs + 1);
        const recovery = new StuckObjectRecovery(h.core, { batchSize: 100, onError: (_object, error) => { throw error; } });
        for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
        const parked = await retrieve(created.refund_id);
        expect(parked).toMatchObject({ status: 'review', error_code: 'rail_unresolved' });
        return parked;
      } finally {
        h.faults.clear();
      }
    };

    test('a refund recovery parked in review settles as the rail decided: failed gives its amount back, with refund_failed', async () => {
      const payment = await paidPayment(1000);
      const parked = await parkedRefund({ payment_id: payment.payment_id, reason: SIMULATOR_REFUND_REASONS.failure });
      // Without force_sync a read does not ask the rail.
      expect((await retrieve(parked.refund_id)).status).toBe('review');
      const settled = await retrieve(parked.refund_id, true);
      expect(settled).toMatchObject({ status: 'failed', error_code: 'SIM_REFUND_DECLINED', amount: 1000 });
      expect((await events(parked.refund_id)).map((e) => e.eventType).sort()).toEqual(['refund_failed', 'refund_review']);
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(0);
      expect((await ok<RefundResponse>(await refund({ payment_id: payment.payment_id }))).amount).toBe(1000);
      // Settled: a second force_sync changes nothing and sends nothing.
      expect(await retrieve(parked.refund_id, true)).toEqual(settled);
      expect(await events(parked.refund_id)).toHaveLength(2);
    });

    test('a refund recovery parked in review settles as succeeded, its rail_unresolved error cleared, with refund_succeeded', async () => {
      const payment = await paidPayment(1000);
      const parked = await parkedRefund({ payment_id: payment.payment_id, amount: 400 });
      const settled = await retrieve(parked.refund_id, true);
      expect(settled).toMatchObject({ status: 'succeeded', error_code: null, error_message: null, amount: 400 });
      expect((await events(parked.refund_id)).map((e) => e.eventType).sort()).toEqual(['refund_review', 'refund_succeeded']);
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(400);
    });

    test('a refund parked in review that the rail never received fails on force_sync (rail_not_reached) and gives its amount back', async () => {
      const payment = await paidPayment(1000);
      const parked = await parkedRefund({ payment_id: payment.payment_id, amount: 600 }, 'throw_before_accept');
      expect(await retrieve(parked.refund_id, true)).toMatchObject({ status: 'failed', error_code: 'rail_not_reached', amount: 600 });
      expect((await events(parked.refund_id)).map((e) => e.eventType).sort()).toEqual(['refund_failed', 'refund_review']);
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(0);
    });

    test('a pending refund settles on force_sync without waiting for the recovery job; a rail review stays review', async () => {
      const payment = await paidPayment(1000);
      h.faults.inject('throw_after_accept', { call: 'refund', rail: 'upi' });
      const pending = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 300 }));
      h.faults.clear();
      expect(pending.status).toBe('pending');
      expect(await retrieve(pending.refund_id, true)).toMatchObject({ status: 'succeeded' });
      expect((await events(pending.refund_id)).map((e) => e.eventType)).toEqual(['refund_succeeded']);

      const held = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 300, reason: SIMULATOR_REFUND_REASONS.review }));
      expect(await retrieve(held.refund_id, true)).toEqual(held);
      expect((await events(held.refund_id)).map((e) => e.eventType)).toEqual(['refund_review']);
    });

    test('updates of a pending refund do not put its recovery off: the job sends it again once it is old enough', async () => {
      const payment = await paidPayment(1000);
      h.faults.inject('throw_before_accept', { call: 'refund', rail: 'upi' });
      const pending = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 500 }));
      h.faults.clear();
      expect(pending.status).toBe('pending');
      const recovery = new StuckObjectRecovery(h.core, { batchSize: 100, onError: (_object, error) => { throw error; } });
      // The merchant tags the refund now and then, each time just before the job runs.
      for (let round = 0; round < 3; round += 1) {
        h.clock.advance(DEFAULT_RECOVERY_POLICY.recoverAfterMs);
        await ok(await request('POST', `/refunds/${pending.refund_id}`, { body: { metadata: { round: String(round) } } }));
        h.clock.advance(1);
        for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
      }
      expect(await retrieve(pending.refund_id)).toMatchObject({ status: 'succeeded', metadata: { round: '2' } });
      expect((await events(pending.refund_id)).map((e) => e.eventType)).toEqual(['refund_succeeded']);
    });

    test('the query: force_sync takes true or false; another parameter is ERR_2004', async () => {
      const payment = await paidPayment(1000);
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 100 }));
      expect(await retrieve(created.refund_id, true)).toEqual(created);
      expect(await ok<RefundResponse>(await request('GET', `/refunds/${created.refund_id}?force_sync=false`))).toEqual(created);
      await expectError(await request('GET', `/refunds/${created.refund_id}?force_sync=yes`), 'ERR_2003', 'force_sync');
      await expectError(await request('GET', `/refunds/${created.refund_id}?expand=1`), 'ERR_2004', 'expand');
    });
  });

  describe(`[${engine}] list refunds`, () => {
    test('filters, count and total_count, newest first, limit and offset', async () => {
      const first = await paidPayment(5000);
      const second = await paidPayment(5000);
      h.clock.advance(60_000);
      const from = h.clock.now().toISOString();
      const a = await ok<RefundResponse>(await refund({ payment_id: first.payment_id, amount: 100 }));
      h.clock.advance(1000);
      const b = await ok<RefundResponse>(await refund({ payment_id: first.payment_id, amount: 200, reason: SIMULATOR_REFUND_REASONS.failure }));
      h.clock.advance(1000);
      const c = await ok<RefundResponse>(await refund({ payment_id: second.payment_id, amount: 300 }));
      h.clock.advance(1000);

      const all = await ok<RefundListResponse>(await list({ start_time: from }));
      expect(all).toMatchObject({ count: 3, total_count: 3 });
      expect(all.data.map((r) => r.refund_id)).toEqual([c.refund_id, b.refund_id, a.refund_id]);

      const page = await ok<RefundListResponse>(await list({ start_time: from, limit: 2, offset: 1 }));
      expect(page).toMatchObject({ count: 2, total_count: 3 });
      expect(page.data.map((r) => r.refund_id)).toEqual([b.refund_id, a.refund_id]);
      const beyond = await ok<RefundListResponse>(await list({ start_time: from, offset: 5 }));
      expect(beyond).toEqual({ count: 0, total_count: 3, data: [] });

      const ids = async (body: Json) => (await ok<RefundListResponse>(await list({ start_time: from, ...body }))).data.map((r) => r.refund_id);
      expect(await ids({ payment_id: first.payment_id })).toEqual([b.refund_id, a.refund_id]);
      expect(await ids({ refund_id: c.refund_id })).toEqual([c.refund_id]);
      expect(await ids({ refund_status: ['failed'] })).toEqual([b.refund_id]);
      expect(await ids({ refund_status: ['succeeded', 'pending'] })).toEqual([c.refund_id, a.refund_id]);
      expect(await ids({ amount_filter: { start_amount: 150 } })).toEqual([c.refund_id, b.refund_id]);
      expect(await ids({ amount_filter: { start_amount: 150, end_amount: 250 } })).toEqual([b.refund_id]);
      expect(await ids({ amount_filter: { end_amount: 100 } })).toEqual([a.refund_id]);
      expect(await ids({ currency: ['INR'] })).toHaveLength(3);
      expect(await ids({ currency: ['EUR', 'USD'] })).toEqual([]);
      expect(await ids({ connector: ['upi_simulator'] })).toHaveLength(3);
      expect(await ids({ connector: ['stripe'] })).toEqual([]);
      expect(await ids({ merchant_connector_id: ['mca_1'] })).toEqual([]);
      expect(await ids({ merchant_connector_id: [] })).toHaveLength(3);
      expect(await ids({ profile_id: first.profile_id })).toHaveLength(3);
      expect(await ids({ profile_id: 'pro_other' })).toEqual([]);
      // end_time bounds the range (inclusive); it defaults to now.
      expect(await ids({ end_time: a.created_at })).toEqual([a.refund_id]);
      expect(await ids({ start_time: b.created_at, end_time: b.created_at })).toEqual([b.refund_id]);
      expect(await ids({ start_time: new Date(h.clock.now().getTime() + 1000).toISOString() })).toEqual([]);
      // Times of year 9999 with a negative offset are in year 10000 in UTC: after every refund.
      expect(await ids({ end_time: '9999-12-31T23:59:59-14:00' })).toHaveLength(3);
      expect(await ids({ start_time: '9999-12-31T23:59:59-01:00' })).toEqual([]);
      expect(await ids({ start_time: '0000-01-01T00:00:00+01:00', payment_id: second.payment_id })).toEqual([c.refund_id]);
      // Offsets in start_time are honoured.
      const plusOne = new Date(new Date(c.created_at).getTime()).toISOString().replace('Z', '+00:00');
      expect(await ids({ start_time: plusOne })).toEqual([c.refund_id]);
      // The live key sees none of the test refunds.
      expect(await ok<RefundListResponse>(await list({ start_time: from }, liveSecretKey))).toEqual({ count: 0, total_count: 0, data: [] });
    });

    test('the default page size is 10', async () => {
      const payment = await paidPayment(5000);
      h.clock.advance(60_000);
      const from = h.clock.now().toISOString();
      for (let i = 0; i < 12; i += 1) await ok(await refund({ payment_id: payment.payment_id, amount: 100 }));
      const page = await ok<RefundListResponse>(await list({ start_time: from }));
      expect(page).toMatchObject({ count: 10, total_count: 12 });
      expect((await ok<RefundListResponse>(await list({ start_time: from, limit: 100 }))).count).toBe(12);
    });

    test.each<[string, Json, keyof typeof ERROR_CATALOG, string]>([
      ['start_time missing', {}, 'ERR_2001', 'start_time'],
      ['start_time not RFC 3339', { start_time: '2025-01-01' }, 'ERR_2003', 'start_time'],
      ['start_time without an offset', { start_time: '2025-01-01T00:00:00' }, 'ERR_2003', 'start_time'],
      ['end_time before start_time', { start_time: '2025-01-02T00:00:00Z', end_time: '2025-01-01T00:00:00Z' }, 'ERR_2003', 'end_time'],
      ['limit 0', { start_time: START, limit: 0 }, 'ERR_2003', 'limit'],
      ['limit above 100', { start_time: START, limit: 101 }, 'ERR_2003', 'limit'],
      ['negative offset', { start_time: START, offset: -1 }, 'ERR_2003', 'offset'],
      ['unknown refund_status', { start_time: START, refund_status: ['done'] }, 'ERR_2003', 'refund_status[0]'],
      ['unknown currency', { start_time: START, currency: ['XXX'] }, 'ERR_2003', 'currency[0]'],
      ['amount_filter reversed', { start_time: START, amount_filter: { start_amount: 500, end_amount: 100 } }, 'ERR_2003', 'amount_filter.end_amount'],
      ['amount_filter unknown field', { start_time: START, amount_filter: { min: 1 } }, 'ERR_2004', 'amount_filter.min'],
      ['an unknown field', { start_time: START, status: 'succeeded' }, 'ERR_2004', 'status'],
      ['more than 100 connectors', { start_time: START, connector: Array(101).fill('upi_simulator') }, 'ERR_2003', 'connector'],
      ['more than 100 merchant_connector_ids', { start_time: START, merchant_connector_id: Array(101).fill('mca_1') }, 'ERR_2003', 'merchant_connector_id'],
    ])('validation: %s', async (_name, body, code, field) => {
      await expectError(await list(body), code, field);
    });

    test('filter arrays as long as a body can carry never answer 5xx: connector is refused past 100 values, a repeated currency counts once', async () => {
      const payment = await paidPayment(1000);
      h.clock.advance(60_000);
      const from = h.clock.now().toISOString();
      const created = await ok<RefundResponse>(await refund({ payment_id: payment.payment_id, amount: 100 }));
      // Each value was a bound parameter: tens of thousands of them passed SQLite's and PostgreSQL's limits (ERR_5000).
      await expectError(await list({ start_time: from, connector: Array(80_000).fill('') }), 'ERR_2003', 'connector');
      const manyCurrencies = await ok<RefundListResponse>(await list({ start_time: from, currency: Array(40_000).fill('INR') }));
      expect(manyCurrencies.data.map((r) => r.refund_id)).toEqual([created.refund_id]);
    });
  });

  describe(`[${engine}] robustness`, () => {
    test('nothing a refund request sends answers 5xx (property)', async () => {
      const payment = await paidPayment(1000);
      const body = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            payment_id: fc.oneof(fc.constant(payment.payment_id), fc.string()),
            amount: fc.oneof(fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER + 2)),
            refund_id: fc.string(),
            reason: fc.string(),
            metadata: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
      );
      await fc.assert(
        fc.asyncProperty(body, fc.constantFrom('/refunds', '/refunds/list', `/refunds/ref_${engine}_prop`), async (value, path) => {
          const response = await h.app.request(path, {
            method: 'POST',
            headers: { 'api-key': h.secretKey, 'content-type': 'application/json' },
            body: JSON.stringify(value),
          });
          expect(response.status).toBeLessThan(500);
          const json = (await response.json()) as Json;
          if (response.status !== 200) expect(Object.keys(json)).toEqual(['error']);
        }),
        { numRuns: 60 },
      );
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBeLessThanOrEqual(1000);
    });
  });

  describe(`[${engine}] openapi`, () => {
    test('/openapi.json documents the refund routes and objects', async () => {
      const doc = (await (await request('GET', '/openapi.json', { key: null })).json()) as { paths: Record<string, Json>; components: { schemas: Json } };
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/refunds', '/refunds/list', '/refunds/{refund_id}']));
      expect(Object.keys(doc.paths['/refunds/{refund_id}'] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining(['CreateRefundRequest', 'UpdateRefundRequest', 'ListRefundsRequest', 'Refund', 'RefundList']),
      );
    });
  });

  describe(`[${engine}] concurrency`, () => {
    test('20 concurrent refunds of 100 on a 1000 payment: exactly 10 succeed, the sum never exceeds the captured amount', async () => {
      const payment = await paidPayment(1000);
      const responses = await Promise.all(Array.from({ length: 20 }, () => refund({ payment_id: payment.payment_id, amount: 100 })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      const refused = responses.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(10);
      const codes = await Promise.all(refused.map(async (r) => ((await r.json()) as { error: { code: string } }).error.code));
      expect(new Set(codes)).toEqual(new Set(['ERR_4008']));
      const page = await ok<RefundListResponse>(await list({ start_time: START, payment_id: payment.payment_id, limit: 100 }));
      expect(page.total_count).toBe(10);
      expect(page.data.every((r) => r.status === 'succeeded')).toBe(true);
      expect(page.data.reduce((sum, r) => sum + r.amount, 0)).toBe(1000);
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(1000);
      const eventCounts = await Promise.all(page.data.map(async (r) => (await events(r.refund_id)).length));
      expect(eventCounts).toEqual(Array(10).fill(1));
    });

    test('concurrent refunds of different sizes never exceed the captured amount', async () => {
      const payment = await paidPayment(1000);
      const amounts = [700, 400, 300, 200, 150, 100, 600, 250];
      const responses = await Promise.all(amounts.map((amount) => refund({ payment_id: payment.payment_id, amount })));
      const won = await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.json() as Promise<RefundResponse>));
      const total = won.reduce((sum, r) => sum + r.amount, 0);
      expect(total).toBeLessThanOrEqual(1000);
      expect(await h.store.refunds.findRefundedAmount(scope(), payment.payment_id)).toBe(total);
      for (const response of responses.filter((r) => r.status !== 200)) await expectError(response, 'ERR_4008');
    });
  });
});
