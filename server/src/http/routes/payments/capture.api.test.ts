/**
 * API suite of manual capture (issue 12) on an account whose card and UPI rails declare manual capture in test
 * mode: authorize into requires_capture, full / partial / multiple captures, refund_uncaptured_amount, void before
 * capture, cancel post capture, refunds that follow captures, incremental and extended authorization, expiry on the
 * harness clock, expand_captures, the webhook event of every change, and the races (concurrent captures never exceed
 * amount_capturable; a capture racing a void has exactly one winner). Runs on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { ErrorCode } from '../../../../../protocol/errors';
import type { AccountSettings, RailCapabilities } from '../../../kernel/account-settings-types';
import { expireLapsedAuthorizations } from '../../../core/payments/open-authorization';
import { AUTHORIZATION_VALIDITY } from '../../../rails/simulator/authorization-terms';
import { PENDING_RESOLVE_AFTER_MS } from '../../../rails/simulator/upi-simulator';
import { clockedApiRequest, type ApiRequestOptions, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';

type Json = Record<string, unknown>;
type Capture = { capture_id: string; amount: number; capture_sequence: number; status: string; authorized_attempt_id: string };

const JS_ORIGIN = 'http://127.0.0.1:8081';
const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };

/** Card and UPI with manual capture (UPI also refunds), as RAIL_ACCOUNT_CONFIG would set them. */
const MANUAL_CAPTURE_SETTINGS: AccountSettings = {
  ...ALL_RAILS_SETTINGS,
  rails: ALL_RAILS_SETTINGS.rails.map((rail) =>
    rail.rail === 'card'
      ? { ...rail, capabilities: { test: { ...NONE, manualCapture: true }, live: NONE } }
      : rail.rail === 'upi'
        ? { ...rail, capabilities: { test: { ...NONE, manualCapture: true, refunds: true }, live: NONE } }
        : rail,
  ),
};

const DAY_MS = 24 * 60 * 60_000;

forEachEngine('Manual capture API', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine, { settings: MANUAL_CAPTURE_SETTINGS });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Each POST a second after the last, so a payment's outbox events sort by time. */
  const request = (method: string, path: string, options: ApiRequestOptions = {}) => clockedApiRequest(h, method, path, options);
  const ok = <T = PaymentResponse>(response: Response): Promise<T> => expectOk<T>(response);
  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const });
  /** The payment's outbox events, oldest first: all under its id, repeats of an event type too (one per version). */
  const events = async (paymentId: string) => {
    const rows = await h.db
      .selectFrom('webhook_events')
      .select(['event_type', 'object_id', 'payload'])
      .where('account_id', '=', scope().accountId)
      .where('mode', '=', 'test')
      .where('object_id', '=', paymentId)
      .orderBy('created_at')
      .orderBy('event_id')
      .execute();
    for (const row of rows) expect(JSON.parse(row.payload)).toMatchObject({ event_type: row.event_type, content: { type: 'payment_details', object: { payment_id: paymentId } } });
    return rows.map((row) => row.event_type);
  };
  const retrieve = async (id: string, query = '') => ok(await request('GET', `/payments/${id}${query}`));
  const capture = (id: string, body: Json = {}) => request('POST', `/payments/${id}/capture`, { body });
  const cancel = (id: string) => request('POST', `/payments/${id}/cancel`, { body: { cancellation_reason: 'order cancelled' } });

  /** A card payment confirmed with the simulator's success card: requires_capture for a manual capture method. */
  const cardPayment = async (captureMethod: string, amount = 10_000, number = '4242424242424242') => {
    const created = await ok(await request('POST', '/payments', { body: { amount, currency: 'USD', capture_method: captureMethod } }));
    const token = await ok<{ psp_token: string }>(
      await request('POST', '/vault/tokens', {
        key: h.publishableKey,
        headers: { origin: JS_ORIGIN },
        body: { client_secret: created.client_secret, card_number: number, card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' },
      }),
    );
    return ok(
      await request('POST', `/payments/${created.payment_id}/confirm`, {
        key: h.publishableKey,
        body: { client_secret: created.client_secret, payment_method: 'card', payment_method_type: 'credit', payment_method_data: { psp_token: token.psp_token } },
      }),
    );
  };
  /** A UPI collect payment confirmed at once. */
  const upiPayment = async (captureMethod: string, vpa = 'success@upi', amount = 10_000) =>
    ok(
      await request('POST', '/payments', {
        body: { amount, currency: 'INR', capture_method: captureMethod, confirm: true, payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } } },
      }),
    );

  describe(`[${engine}] authorize`, () => {
    test('manual and manual_multiple authorize into requires_capture with the whole amount capturable (event payment_authorized)', async () => {
      for (const method of ['manual', 'manual_multiple']) {
        const card = await cardPayment(method);
        // Nothing is received before the first capture: amount_received is null (Hyperswitch), on confirm and retrieve.
        expect(card).toMatchObject({ status: 'requires_capture', capture_method: method, amount_capturable: 10_000, amount_received: null, connector: 'card_simulator' });
        expect(await retrieve(card.payment_id)).toMatchObject({ status: 'requires_capture', amount_received: null });
        expect(await events(card.payment_id)).toEqual(['payment_authorized']);
        const upi = await upiPayment(method);
        expect(upi).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000, amount_received: null, connector: 'upi_simulator' });
        expect(await retrieve(upi.payment_id)).toMatchObject({ status: 'requires_capture', amount_received: null });
      }
    });

    test('automatic capture on the same rails still succeeds at once; a declined card fails with nothing capturable', async () => {
      expect(await cardPayment('automatic')).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });
      expect(await cardPayment('manual', 10_000, '4000000000000002')).toMatchObject({ status: 'failed', amount_capturable: 0 });
    });

    test('a UPI collect that waits for the customer lands in requires_capture once the customer approves', async () => {
      const pending = await upiPayment('manual', 'pending@upi');
      expect(pending.status).toBe('requires_customer_action');
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      expect(await retrieve(pending.payment_id)).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000 });
      expect(await events(pending.payment_id)).toEqual(['action_required', 'payment_authorized']);
    });
  });

  describe(`[${engine}] capture`, () => {
    test('without amount_to_capture the whole amount is captured: succeeded; a second capture is refused (ERR_4003)', async () => {
      const payment = await cardPayment('manual');
      const captured = await ok(await capture(payment.payment_id));
      expect(captured).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_succeeded']);
      const error = await expectApiError(await capture(payment.payment_id), 'ERR_4003');
      expect(String(error['message'])).toMatch(/status succeeded/);
      const view = await retrieve(payment.payment_id, '?expand_captures=true&expand_attempts=true');
      expect(view.captures).toEqual([
        expect.objectContaining({ capture_id: `${payment.payment_id}_1_1`, status: 'charged', amount: 10_000, capture_sequence: 1, authorized_attempt_id: `${payment.payment_id}_1` }),
      ]);
      expect(view.attempts?.map((attempt) => attempt.status)).toEqual(['charged']);
    });

    test('the capture response carries the stored customer, as retrieve does', async () => {
      const customer = await ok<{ customer_id: string }>(await request('POST', '/customers', { body: { name: 'Ada', email: 'ada@example.com' } }));
      const payment = await ok(
        await request('POST', '/payments', {
          body: { amount: 1_000, currency: 'INR', capture_method: 'manual', confirm: true, customer_id: customer.customer_id, payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } },
        }),
      );
      const captured = await ok(await capture(payment.payment_id));
      expect(captured.customer).toMatchObject({ id: customer.customer_id, name: 'Ada', email: 'ada@example.com' });
      expect(captured.customer).toEqual((await retrieve(payment.payment_id)).customer);
    });

    test('capture_method manual: a partial capture releases the rest (partially_captured), nothing more can be captured', async () => {
      const payment = await cardPayment('manual');
      expect(await ok(await capture(payment.payment_id, { amount_to_capture: 4_000 }))).toMatchObject({
        status: 'partially_captured',
        amount_received: 4_000,
        amount_capturable: 0,
      });
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 1_000 }), 'ERR_4003');
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_captured']);
    });

    test('manual_multiple: partial captures keep the rest capturable until the whole amount is captured', async () => {
      const payment = await cardPayment('manual_multiple');
      expect(await ok(await capture(payment.payment_id, { amount_to_capture: 3_000 }))).toMatchObject({
        status: 'partially_captured_and_capturable',
        amount_received: 3_000,
        amount_capturable: 7_000,
      });
      expect(await ok(await capture(payment.payment_id, { amount_to_capture: 2_000 }))).toMatchObject({
        status: 'partially_captured_and_capturable',
        amount_received: 5_000,
        amount_capturable: 5_000,
      });
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 5_001 }), 'ERR_4014', 'amount_to_capture');
      expect(await ok(await capture(payment.payment_id))).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0 });
      const view = await retrieve(payment.payment_id, '?expand_captures=true');
      expect(view.captures?.map((c) => [c.capture_sequence, c.amount, c.status])).toEqual([
        [1, 3_000, 'charged'],
        [2, 2_000, 'charged'],
        [3, 5_000, 'charged'],
      ]);
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_captured', 'payment_captured', 'payment_succeeded']);
      await expectApiError(await capture(payment.payment_id), 'ERR_4003');
    });

    test('refund_uncaptured_amount ends a manual_multiple authorization with what was captured (partially_captured)', async () => {
      const payment = await cardPayment('manual_multiple');
      await ok(await capture(payment.payment_id, { amount_to_capture: 1_000 }));
      expect(await ok(await capture(payment.payment_id, { amount_to_capture: 2_000, refund_uncaptured_amount: true }))).toMatchObject({
        status: 'partially_captured',
        amount_received: 3_000,
        amount_capturable: 0,
      });
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 1 }), 'ERR_4003');
    });

    test('bad amounts: 0 is ERR_2003, above amount_capturable ERR_4014, negative ERR_2003; nothing changes', async () => {
      const payment = await cardPayment('manual');
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 0 }), 'ERR_2003', 'amount_to_capture');
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 10_001 }), 'ERR_4014', 'amount_to_capture');
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: -5 }), 'ERR_2003', 'amount_to_capture');
      await expectApiError(await capture(payment.payment_id, { amount_to_capture: 'all' }), 'ERR_2003', 'amount_to_capture');
      expect(await retrieve(payment.payment_id, '?expand_captures=true')).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000, captures: [] });
      expect(await events(payment.payment_id)).toEqual(['payment_authorized']);
    });

    test('not capturable: a payment not yet confirmed, a failed one, and an automatic-capture one (ERR_4003)', async () => {
      const fresh = await ok(await request('POST', '/payments', { body: { amount: 1_000, currency: 'USD', capture_method: 'manual' } }));
      await expectApiError(await capture(fresh.payment_id), 'ERR_4003');
      const declined = await cardPayment('manual', 10_000, '4000000000000002');
      await expectApiError(await capture(declined.payment_id), 'ERR_4003');
      const automatic = await cardPayment('automatic');
      await expectApiError(await capture(automatic.payment_id), 'ERR_4003');
    });
  });

  describe(`[${engine}] events of repeated captures`, () => {
    test('GET /events?object_id lists every event of a payment under its own id, past version 10 of a 62-character payment_id', async () => {
      const paymentId = `pay_${engine}_${'r'.repeat(62)}`.slice(0, 62);
      const body = { payment_id: paymentId, amount: 10_000, currency: 'INR', capture_method: 'manual_multiple', confirm: true, payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };
      expect((await ok(await request('POST', '/payments', { body }))).status).toBe('requires_capture');
      for (let i = 0; i < 10; i += 1) await ok(await capture(paymentId, { amount_to_capture: 100 }));
      expect((await h.store.payments.findPayment(scope(), paymentId))!.version).toBeGreaterThanOrEqual(10);
      const listed = await ok<{ data: { event_type: string; object_id: string }[] }>(await request('GET', `/events?object_id=${paymentId}&limit=100`));
      expect(listed.data.map((event) => event.event_type)).toEqual([...Array<string>(10).fill('payment_captured'), 'payment_authorized']);
      expect(listed.data.every((event) => event.object_id === paymentId)).toBe(true);
    });
  });

  describe(`[${engine}] void and cancel post capture`, () => {
    test('cancel before capture voids the authorization (cancelled, payment_cancelled); it cannot be captured after', async () => {
      const payment = await cardPayment('manual');
      expect(await ok(await cancel(payment.payment_id))).toMatchObject({ status: 'cancelled', amount_capturable: 0, amount_received: null, cancellation_reason: 'order cancelled' });
      await expectApiError(await capture(payment.payment_id), 'ERR_4003');
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_cancelled']);
      const view = await retrieve(payment.payment_id, '?expand_attempts=true');
      expect(view.attempts?.map((attempt) => attempt.status)).toEqual(['voided']);
    });

    test('cancel is refused once something was captured (partially_captured_and_capturable, succeeded)', async () => {
      const payment = await cardPayment('manual_multiple');
      await ok(await capture(payment.payment_id, { amount_to_capture: 1_000 }));
      await expectApiError(await cancel(payment.payment_id), 'ERR_4003');
    });

    test('cancel_post_capture voids what was captured: cancelled_post_capture (event payment_cancelled_post_capture), nothing refundable after', async () => {
      for (const [method, amount] of [['manual', undefined], ['manual', 4_000], ['manual_multiple', 4_000]] as const) {
        const payment = await upiPayment(method);
        await ok(await capture(payment.payment_id, amount === undefined ? {} : { amount_to_capture: amount }));
        const cancelled = await ok(await request('POST', `/payments/${payment.payment_id}/cancel_post_capture`, { body: { cancellation_reason: 'duplicate order' } }));
        expect(cancelled).toMatchObject({ status: 'cancelled_post_capture', amount_capturable: 0, cancellation_reason: 'duplicate order' });
        expect((await events(payment.payment_id)).at(-1)).toBe('payment_cancelled_post_capture');
        await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 100 } }), 'ERR_4003');
        await expectApiError(await request('POST', `/payments/${payment.payment_id}/cancel_post_capture`, { body: {} }), 'ERR_4003');
        await expectApiError(await capture(payment.payment_id), 'ERR_4003');
      }
    });

    test('cancel_post_capture is refused before capture and after a refund', async () => {
      const authorized = await upiPayment('manual');
      await expectApiError(await request('POST', `/payments/${authorized.payment_id}/cancel_post_capture`, { body: {} }), 'ERR_4003');
      await ok(await capture(authorized.payment_id));
      await ok(await request('POST', '/refunds', { body: { payment_id: authorized.payment_id, amount: 500 } }));
      const error = await expectApiError(await request('POST', `/payments/${authorized.payment_id}/cancel_post_capture`, { body: {} }), 'ERR_4003');
      expect(String(error['message'])).toMatch(/refunded/);
      expect((await retrieve(authorized.payment_id)).status).toBe('succeeded');
    });
  });

  describe(`[${engine}] refunds follow captures`, () => {
    test('nothing is refundable before capture; after a partial capture only the captured amount is', async () => {
      const payment = await upiPayment('manual');
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 100 } }), 'ERR_4003');
      await ok(await capture(payment.payment_id, { amount_to_capture: 3_000 }));
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 3_001 } }), 'ERR_4008', 'amount');
      const refund = await ok<{ amount: number; status: string }>(await request('POST', '/refunds', { body: { payment_id: payment.payment_id } }));
      expect(refund).toMatchObject({ amount: 3_000, status: 'succeeded' });
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 100 } }), 'ERR_4008', 'amount');
    });

    test('manual_multiple: refundable once the captures are done, up to their sum', async () => {
      const payment = await upiPayment('manual_multiple');
      await ok(await capture(payment.payment_id, { amount_to_capture: 2_000 }));
      // Still capturable: Hyperswitch refunds succeeded and partially_captured payments only.
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 100 } }), 'ERR_4003');
      await ok(await capture(payment.payment_id, { amount_to_capture: 3_000, refund_uncaptured_amount: true }));
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 5_001 } }), 'ERR_4008', 'amount');
      await ok(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 5_000 } }));
    });

    test('a refund after the authorization lapsed unread sees the expiry first and refunds what was captured', async () => {
      const payment = await upiPayment('manual_multiple');
      await ok(await capture(payment.payment_id, { amount_to_capture: 4_000 }));
      // No read or sweep between the lapse and the refund: the refund itself applies the expiry.
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs);
      const refund = await ok<{ amount: number; status: string }>(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 1_000 } }));
      expect(refund).toMatchObject({ amount: 1_000, status: 'succeeded' });
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'partially_captured', amount_received: 4_000, amount_capturable: 0 });
      await expectApiError(await request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 3_001 } }), 'ERR_4008', 'amount');
    });
  });

  describe(`[${engine}] incremental authorization`, () => {
    test('raises the authorized total (amount and amount_capturable), refused above what the acquirer allows', async () => {
      const payment = await cardPayment('manual');
      const raised = await ok(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 15_000, reason: 'extra night' } }));
      expect(raised).toMatchObject({ status: 'requires_capture', amount: 15_000, amount_capturable: 15_000 });
      // The simulated acquirer allows up to twice the amount first authorized.
      const refused = await expectApiError(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 20_001 } }), 'ERR_4015', 'amount');
      expect(String(refused['message'])).toMatch(/incremental_authorization_limit_exceeded/);
      await expectApiError(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 15_000 } }), 'ERR_2003', 'amount');
      expect(await ok(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 20_000 } }))).toMatchObject({ amount: 20_000 });
      expect(await ok(await capture(payment.payment_id))).toMatchObject({ status: 'succeeded', amount_received: 20_000 });
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_authorized', 'payment_authorized', 'payment_succeeded']);
    });

    /** The card rail's next increase waits at the rail until `release`: `atRail` resolves once it is there. */
    const holdNextIncrease = () => {
      const adapter = h.rails.adapterFor('test', 'card')!;
      const increase = adapter.incrementAuthorization!.bind(adapter);
      let reachedRail!: () => void;
      const atRail = new Promise<void>((resolve) => (reachedRail = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const rail = vi.spyOn(adapter, 'incrementAuthorization').mockImplementationOnce(async (asked) => {
        reachedRail();
        await released;
        return increase(asked);
      });
      return { atRail, release, rail };
    };

    test('one increase at a time: a second one while the first is at the rail answers ERR_4003 and asks the rail nothing; a claim left by a crash lapses', async () => {
      const payment = await cardPayment('manual');
      const path = `/payments/${payment.payment_id}/incremental_authorization`;
      const { atRail, release, rail } = holdNextIncrease();
      try {
        const first = request('POST', path, { body: { amount: 15_000 } });
        await atRail;
        const claimedRow = await h.db.selectFrom('payments').select('rail_state').where('payment_id', '=', payment.payment_id).executeTakeFirstOrThrow();
        const second = await expectApiError(await request('POST', path, { body: { amount: 20_000 } }), 'ERR_4003');
        expect(String(second['message'])).toMatch(/in progress/);
        release();
        expect(await ok(await first)).toMatchObject({ status: 'requires_capture', amount: 15_000, amount_capturable: 15_000 });
        expect(rail).toHaveBeenCalledTimes(1);
        expect(await retrieve(payment.payment_id)).toMatchObject({ amount: 15_000, amount_capturable: 15_000 });

        // As if the process had died between its claim and the rail's answer: the claim stays until its lease lapses.
        await h.db.updateTable('payments').set({ rail_state: claimedRow.rail_state }).where('payment_id', '=', payment.payment_id).execute();
        await expectApiError(await request('POST', path, { body: { amount: 18_000 } }), 'ERR_4003');
        h.clock.advance(2 * 20_000);
        expect(await ok(await request('POST', path, { body: { amount: 18_000 } }))).toMatchObject({ amount: 18_000, amount_capturable: 18_000 });
        expect(await ok(await request('POST', path, { body: { amount: 20_000 } }))).toMatchObject({ amount: 20_000 });
      } finally {
        rail.mockRestore();
      }
    });

    /**
     * The card rail as an acquirer that keeps one authorized total per payment: a call sets it when it lands (`land()`
     * of a held call, at once otherwise), and a held call answers only on `answer()`. So a test picks the order in
     * which the rail takes two calls and the order in which their answers come back. The rail's memory (what a lookup
     * answers) learns of a held call when it lands too: before, the rail has not received it.
     */
    const railKeepingTotals = () => {
      const adapter = h.rails.adapterFor('test', 'card')!;
      const increase = adapter.incrementAuthorization!.bind(adapter);
      const totals = new Map<string, number>();
      type Held = { atRail: Promise<void>; land: () => Promise<void>; answer: () => void };
      type Asked = Parameters<typeof increase>[0];
      type Outcome = Awaited<ReturnType<typeof increase>>;
      const waiting: ((asked: Asked) => Promise<Outcome>)[] = [];
      const hold = (): Held => {
        let reached!: () => void;
        const atRail = new Promise<void>((resolve) => (reached = resolve));
        let landNow!: () => void;
        const landing = new Promise<void>((resolve) => (landNow = resolve));
        let landed!: () => void;
        const hasLanded = new Promise<void>((resolve) => (landed = resolve));
        let answerNow!: () => void;
        const answering = new Promise<void>((resolve) => (answerNow = resolve));
        waiting.push(async (asked) => {
          reached();
          await landing;
          const outcome = await increase(asked);
          if (outcome.kind !== 'declined') totals.set(asked.paymentId, asked.newAmount);
          landed();
          await answering;
          return outcome;
        });
        return { atRail, land: () => (landNow(), hasLanded), answer: answerNow };
      };
      const rail = vi.spyOn(adapter, 'incrementAuthorization').mockImplementation(async (asked) => {
        const held = waiting.shift();
        if (held !== undefined) return held(asked);
        const outcome = await increase(asked);
        if (outcome.kind !== 'declined') totals.set(asked.paymentId, asked.newAmount);
        return outcome;
      });
      return { hold, rail, total: (paymentId: string) => totals.get(paymentId) };
    };
    const LEASE_MS = 2 * 20_000;
    const railStateOf = async (paymentId: string) =>
      (await h.db.selectFrom('payments').select('rail_state').where('payment_id', '=', paymentId).executeTakeFirstOrThrow()).rail_state;

    test('an increase whose call ends after its lease lapsed and a later increase took over applies nothing and sets the rail back to the payment\'s total', async () => {
      const payment = await cardPayment('manual');
      const path = `/payments/${payment.payment_id}/incremental_authorization`;
      const rail = railKeepingTotals();
      try {
        const late = rail.hold();
        const first = request('POST', path, { body: { amount: 15_000 } });
        await late.atRail;
        h.clock.advance(LEASE_MS);
        expect(await ok(await request('POST', path, { body: { amount: 18_000 } }))).toMatchObject({ amount: 18_000, amount_capturable: 18_000 });
        expect(rail.total(payment.payment_id)).toBe(18_000);
        // The rail takes the late call after the later one: it holds 15000 until the late request sets it back.
        await late.land();
        expect(rail.total(payment.payment_id)).toBe(15_000);
        late.answer();
        expect(await ok(await first)).toMatchObject({ status: 'requires_capture', amount: 18_000, amount_capturable: 18_000 });
        expect(rail.total(payment.payment_id)).toBe(18_000);
        expect(await retrieve(payment.payment_id)).toMatchObject({ amount: 18_000, amount_capturable: 18_000 });
        expect(await railStateOf(payment.payment_id)).toBeNull();
        expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_authorized']);
      } finally {
        rail.rail.mockRestore();
      }
      expect(await ok(await capture(payment.payment_id))).toMatchObject({ status: 'succeeded', amount_received: 18_000 });
    });

    test('a late increase whose call ends while the later one is at the rail has the later one set its total again before it settles', async () => {
      const payment = await cardPayment('manual');
      const path = `/payments/${payment.payment_id}/incremental_authorization`;
      const rail = railKeepingTotals();
      try {
        const late = rail.hold();
        const first = request('POST', path, { body: { amount: 15_000 } });
        await late.atRail;
        h.clock.advance(LEASE_MS);
        const later = rail.hold();
        const second = request('POST', path, { body: { amount: 18_000 } });
        await later.atRail;
        // The rail takes the later call first, then the late one, whose answer comes back first.
        await later.land();
        await late.land();
        late.answer();
        expect(await ok(await first)).toMatchObject({ amount: 10_000 });
        expect(rail.total(payment.payment_id)).toBe(15_000);
        later.answer();
        expect(await ok(await second)).toMatchObject({ status: 'requires_capture', amount: 18_000, amount_capturable: 18_000 });
        expect(rail.total(payment.payment_id)).toBe(18_000);
        expect(await railStateOf(payment.payment_id)).toBeNull();
        expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_authorized']);
      } finally {
        rail.rail.mockRestore();
      }
    });

    test('capture and cancel wait for an increase at the rail: ERR_4003 while it is there, then they apply to the raised total', async () => {
      for (const [operation, body] of [['capture', {}], ['cancel', { cancellation_reason: 'order changed' }]] as const) {
        const payment = await cardPayment('manual');
        const { atRail, release, rail } = holdNextIncrease();
        try {
          const raising = request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 15_000 } });
          await atRail;
          const refused = await expectApiError(await request('POST', `/payments/${payment.payment_id}/${operation}`, { body }), 'ERR_4003');
          expect(String(refused['message']), operation).toMatch(/incremental authorization \(to 15000\) is in progress/);
          expect((await retrieve(payment.payment_id)).status, operation).toBe('requires_capture');
          release();
          expect(await ok(await raising)).toMatchObject({ amount: 15_000, amount_capturable: 15_000 });
        } finally {
          rail.mockRestore();
        }
        const settled = await ok(await request('POST', `/payments/${payment.payment_id}/${operation}`, { body }));
        expect(settled, operation).toMatchObject(operation === 'capture' ? { status: 'succeeded', amount_received: 15_000 } : { status: 'cancelled' });
      }
    });

    test('only in requires_capture', async () => {
      const payment = await upiPayment('manual_multiple');
      await ok(await capture(payment.payment_id, { amount_to_capture: 1_000 }));
      await expectApiError(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 12_000 } }), 'ERR_4003');
    });
  });

  describe(`[${engine}] authorization expiry and extended authorization`, () => {
    test('an uncaptured authorization expires after the rail validity (expired, payment_expired); it cannot be captured', async () => {
      const payment = await cardPayment('manual');
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs - 1);
      expect((await retrieve(payment.payment_id)).status).toBe('requires_capture');
      h.clock.advance(1);
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'expired', amount_capturable: 0, amount_received: null });
      // The attempt ends as the authorization did: released, as a void releases it.
      expect((await retrieve(payment.payment_id, '?expand_attempts=true')).attempts?.map((attempt) => attempt.status)).toEqual(['voided']);
      await expectApiError(await capture(payment.payment_id), 'ERR_4003');
      await expectApiError(await cancel(payment.payment_id), 'ERR_4003');
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_expired']);
    });

    test('the first operation after expiry sees it too; a partly captured authorization keeps its captures (partially_captured)', async () => {
      const expiring = await cardPayment('manual');
      const partial = await cardPayment('manual_multiple');
      await ok(await capture(partial.payment_id, { amount_to_capture: 2_500 }));
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs);
      await expectApiError(await capture(expiring.payment_id), 'ERR_4003');
      expect(await events(expiring.payment_id)).toEqual(['payment_authorized', 'payment_expired']);
      await expectApiError(await capture(partial.payment_id, { amount_to_capture: 100 }), 'ERR_4003');
      expect(await retrieve(partial.payment_id)).toMatchObject({ status: 'partially_captured', amount_received: 2_500, amount_capturable: 0 });
      await ok(await request('POST', `/payments/${partial.payment_id}/cancel_post_capture`, { body: {} }));
    });

    test('extend_authorization keeps a requires_capture authorization capturable for the extended validity', async () => {
      const payment = await upiPayment('manual');
      const extended = await ok(await request('POST', `/payments/${payment.payment_id}/extend_authorization`));
      expect(extended).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000 });
      // Extending again changes nothing and writes no event.
      await ok(await request('POST', `/payments/${payment.payment_id}/extend_authorization`));
      expect(await events(payment.payment_id)).toEqual(['payment_authorized', 'payment_authorized']);
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs + DAY_MS);
      expect((await retrieve(payment.payment_id)).status).toBe('requires_capture');
      h.clock.advance(AUTHORIZATION_VALIDITY.extendedMs - AUTHORIZATION_VALIDITY.standardMs - DAY_MS);
      expect((await retrieve(payment.payment_id)).status).toBe('expired');
      await expectApiError(await request('POST', `/payments/${payment.payment_id}/extend_authorization`), 'ERR_4003');
    });

    test('the expiry sweep expires lapsed authorizations and writes their events without a read', async () => {
      // Authorizations of earlier tests that lapsed unread (the harness clock only moves forward) go first.
      await expireLapsedAuthorizations(h.core, 1_000);
      const lapsing = await cardPayment('manual');
      const partial = await upiPayment('manual_multiple');
      await ok(await capture(partial.payment_id, { amount_to_capture: 1_000 }));
      const extended = await cardPayment('manual');
      await ok(await request('POST', `/payments/${extended.payment_id}/extend_authorization`));
      expect(await expireLapsedAuthorizations(h.core, 100)).toBe(0);
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs + DAY_MS);
      expect(await expireLapsedAuthorizations(h.core, 100)).toBeGreaterThanOrEqual(2);
      expect((await events(lapsing.payment_id)).at(-1)).toBe('payment_expired');
      expect((await events(partial.payment_id)).at(-1)).toBe('payment_captured');
      const stored = async (id: string) => (await h.store.payments.findPayment(scope(), id))?.status;
      const attempts = async (id: string) => (await h.store.attempts.listAttempts(scope(), id)).map((attempt) => attempt.status);
      expect([await attempts(lapsing.payment_id), await attempts(partial.payment_id)]).toEqual([['voided'], ['charged']]);
      expect([await stored(lapsing.payment_id), await stored(partial.payment_id), await stored(extended.payment_id)]).toEqual([
        'expired',
        'partially_captured',
        'requires_capture',
      ]);
      // Nothing left to expire until the extended one lapses.
      expect(await expireLapsedAuthorizations(h.core, 100)).toBe(0);
    });

    test('an extended authorization can still be captured after the standard validity', async () => {
      const payment = await cardPayment('manual');
      await ok(await request('POST', `/payments/${payment.payment_id}/extend_authorization`));
      h.clock.advance(AUTHORIZATION_VALIDITY.standardMs * 2);
      expect(await ok(await capture(payment.payment_id))).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    });
  });

  describe(`[${engine}] races`, () => {
    test('concurrent captures never exceed amount_capturable', async () => {
      const payment = await cardPayment('manual_multiple');
      const responses = await Promise.all(Array.from({ length: 12 }, () => capture(payment.payment_id, { amount_to_capture: 3_000 })));
      const won = responses.filter((response) => response.status === 200);
      expect(won).toHaveLength(3);
      for (const response of responses.filter((r) => r.status !== 200)) {
        const body = (await response.json()) as { error: { code: ErrorCode } };
        expect(['ERR_4014', 'ERR_4003']).toContain(body.error.code);
      }
      const view = await retrieve(payment.payment_id, '?expand_captures=true');
      expect(view).toMatchObject({ status: 'partially_captured_and_capturable', amount_received: 9_000, amount_capturable: 1_000 });
      expect(view.captures?.map((c) => c.capture_sequence)).toEqual([1, 2, 3]);
      expect((view.captures as Capture[]).reduce((sum, c) => sum + c.amount, 0)).toBe(9_000);
      expect((await events(payment.payment_id)).filter((type) => type === 'payment_captured')).toHaveLength(3);
    });

    test('concurrent full captures: exactly one wins', async () => {
      const payment = await upiPayment('manual');
      const responses = await Promise.all(Array.from({ length: 8 }, () => capture(payment.payment_id)));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
    });

    test('a capture racing a void: exactly one wins, and the payment shows that one', async () => {
      for (let round = 0; round < 6; round += 1) {
        const payment = await cardPayment(round % 2 === 0 ? 'manual' : 'manual_multiple');
        const [captured, voided] = await Promise.all([capture(payment.payment_id, { amount_to_capture: 4_000 }), cancel(payment.payment_id)]);
        expect([captured.status, voided.status].filter((status) => status === 200)).toHaveLength(1);
        const view = await retrieve(payment.payment_id, '?expand_captures=true');
        if (captured.status === 200) {
          expect(view.status).toMatch(/^partially_captured/);
          expect(view.captures).toHaveLength(1);
          await expectApiError(voided, 'ERR_4003');
        } else {
          expect(view).toMatchObject({ status: 'cancelled', amount_received: null, captures: [] });
          await expectApiError(captured, 'ERR_4003');
        }
      }
    });

    test('a cancel post capture racing a refund: exactly one wins', async () => {
      for (let round = 0; round < 4; round += 1) {
        const payment = await upiPayment('manual');
        await ok(await capture(payment.payment_id));
        const [cancelled, refunded] = await Promise.all([
          request('POST', `/payments/${payment.payment_id}/cancel_post_capture`, { body: {} }),
          request('POST', '/refunds', { body: { payment_id: payment.payment_id, amount: 1_000 } }),
        ]);
        expect([cancelled.status, refunded.status].filter((status) => status === 200)).toHaveLength(1);
      }
    });
  });

  describe(`[${engine}] request errors`, () => {
    test('secret key only; unknown payment; unknown fields', async () => {
      const payment = await cardPayment('manual');
      await expectApiError(await request('POST', `/payments/${payment.payment_id}/capture`, { key: h.publishableKey, body: {} }), 'ERR_1003');
      await expectApiError(await request('POST', '/payments/pay_missing_capture/capture', { body: {} }), 'ERR_4001');
      await expectApiError(await request('POST', '/payments/pay_missing_capture/extend_authorization'), 'ERR_4001');
      await expectApiError(await capture(payment.payment_id, { amount: 5 }), 'ERR_2004', 'amount');
      await expectApiError(await request('POST', `/payments/${payment.payment_id}/incremental_authorization`, { body: { amount: 1.5 } }), 'ERR_2003', 'amount');
      expect((await retrieve(payment.payment_id)).status).toBe('requires_capture');
    });
  });
});
