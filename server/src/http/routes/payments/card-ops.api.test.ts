/**
 * API suite of the card payment operations (issue 12) on an account with the simulated card acquirer (manual capture
 * and refunds on): card issuers, the 3DS decision rules, wallet session tokens, post session tokens, external 3DS authentication
 * with each outcome (frictionless, challenge completed or failed, rejected, expired) and complete authorize, the
 * simulator's own 3DS cards at confirm, the state errors and the webhook event of every change. SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { THREE_DS_VALIDITY_MS } from '../../../rails/simulator/card-simulator';
import { apiRequest, clockedApiRequest, type ApiRequestOptions, expectApiError, expectOk, paymentEventTypes } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { CARD_CAPTURE_SETTINGS } from '../../../test-support/fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';

type Json = Record<string, unknown>;

const JS_ORIGIN = 'http://127.0.0.1:8081';

const CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  frictionless: '4000000000003055',
  challenge: '4000003800000446',
  rejected: '4000008400001629',
} as const;

forEachEngine('Card operations API', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine, { settings: CARD_CAPTURE_SETTINGS });
  });
  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: ApiRequestOptions = {}) => clockedApiRequest(h, method, path, options);
  const ok = <T = PaymentResponse>(response: Response): Promise<T> => expectOk<T>(response);
  const events = (paymentId: string) => paymentEventTypes(h, paymentId);
  const retrieve = async (id: string) => ok(await request('GET', `/payments/${id}`));
  const createPayment = async (body: Json = {}) => ok(await request('POST', '/payments', { body: { amount: 10_000, currency: 'USD', ...body } }));
  /** A psp_token for `payment`, minted as the hosted frame mints it. */
  const mintToken = async (payment: PaymentResponse, number: string) =>
    ok<{ psp_token: string }>(
      await request('POST', '/vault/tokens', {
        key: h.publishableKey,
        headers: { origin: JS_ORIGIN },
        body: { client_secret: payment.client_secret, card_number: number, card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' },
      }),
    );
  /** A card payment created with `fields` and confirmed in the browser's way (psp_token, publishable key). */
  const cardPayment = async (number: string, fields: Json = {}) => {
    const created = await createPayment(fields);
    const token = await mintToken(created, number);
    const confirmed = await ok(
      await request('POST', `/payments/${created.payment_id}/confirm`, {
        key: h.publishableKey,
        body: { client_secret: created.client_secret, payment_method: 'card', payment_method_type: 'credit', payment_method_data: { psp_token: token.psp_token } },
      }),
    );
    return { ...confirmed, client_secret: created.client_secret! };
  };
  const external = (number: string, fields: Json = {}) => cardPayment(number, { request_external_three_ds_authentication: true, ...fields });
  const authenticate = (payment: { payment_id: string; client_secret: string }, body: Json = {}) =>
    request('POST', `/payments/${payment.payment_id}/3ds/authentication`, {
      key: h.publishableKey,
      body: { client_secret: payment.client_secret, device_channel: 'BRW', threeds_method_comp_ind: 'N', ...body },
    });
  const completeAuthorize = (payment: { payment_id: string; client_secret: string }, body: Json = {}) =>
    request('POST', `/payments/${payment.payment_id}/complete_authorize`, { key: h.publishableKey, body: { client_secret: payment.client_secret, ...body } });
  /** Answers the simulator's 3DS page at `url` (a form POST, as its buttons send it). */
  const answerChallenge = async (url: string, decision: 'complete' | 'fail') => {
    const page = new URL(url);
    const form = new URLSearchParams({ decision, account: page.searchParams.get('account') ?? '', challenge: page.searchParams.get('challenge') ?? '' });
    const response = await request('POST', page.pathname, { key: null, raw: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status, await response.clone().text()).toBe(200);
  };

  describe(`[${engine}] an account without a card acquirer (the default account)`, () => {
    test('card issuers, the 3DS decision rules and wallet session tokens answer ERR_4004; the external 3DS calls find no card payment', async () => {
      const plain = await createHarness(engine);
      try {
        const send = (method: string, path: string, options: ApiRequestOptions = {}) => apiRequest(plain, method, path, options);
        await expectApiError(await send('GET', '/card_issuers'), 'ERR_4004');
        const { email, password } = plain.boot.createdOperator!;
        const { session_token } = await expectOk<{ session_token: string }>(await send('POST', '/v1/sessions', { key: null, body: { email, password } }));
        await expectApiError(await send('GET', '/card_issuers', { key: null, headers: { authorization: `Bearer ${session_token}` } }), 'ERR_4004');
        await expectApiError(await send('POST', '/three_ds_decision/execute', { body: { routing_id: 'rail_3ds_default', payment: { amount: 100, currency: 'EUR' } } }), 'ERR_4004');
        const payment = await expectOk<PaymentResponse>(await send('POST', '/payments', { body: { amount: 10_000, currency: 'INR' } }));
        const asClient = (path: string, body: Json) => send('POST', path, { key: plain.publishableKey, body: { client_secret: payment.client_secret, ...body } });
        await expectApiError(await asClient('/payments/session_tokens', { payment_id: payment.payment_id, wallets: ['google_pay'] }), 'ERR_4004');
        await expectApiError(await asClient(`/payments/${payment.payment_id}/post_session_tokens`, { payment_method: 'wallet', payment_method_type: 'paypal' }), 'ERR_4004');
        await expectApiError(await asClient(`/payments/${payment.payment_id}/3ds/authentication`, { device_channel: 'BRW', threeds_method_comp_ind: 'N' }), 'ERR_4003');
        await expectApiError(await asClient(`/payments/${payment.payment_id}/complete_authorize`, {}), 'ERR_4003');
      } finally {
        await plain.close();
      }
    });
  });

  describe(`[${engine}] GET /card_issuers`, () => {
    test('lists issuers alphabetically, at most 10 by default, searched case-insensitively by name and bounded by limit', async () => {
      const all = await ok<{ issuers: { id: string; issuer_name: string }[] }>(await request('GET', '/card_issuers'));
      expect(all.issuers).toHaveLength(10);
      const names = all.issuers.map((issuer) => issuer.issuer_name);
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
      const banks = await ok<{ issuers: { id: string; issuer_name: string }[] }>(await request('GET', '/card_issuers?query=BANK&limit=100'));
      expect(banks.issuers.length).toBeGreaterThan(3);
      for (const issuer of banks.issuers) expect(issuer.issuer_name.toLowerCase()).toContain('bank');
      expect(banks.issuers).toContainEqual({ id: 'issuer_hdfc_bank', issuer_name: 'HDFC Bank' });
      expect((await ok<{ issuers: unknown[] }>(await request('GET', '/card_issuers?query=bank&limit=2'))).issuers).toHaveLength(2);
      expect((await ok<{ issuers: unknown[] }>(await request('GET', '/card_issuers?limit=0'))).issuers).toEqual([]);
      expect((await ok<{ issuers: unknown[] }>(await request('GET', '/card_issuers?query=no%20such%20issuer'))).issuers).toEqual([]);
    });

    test('refuses a limit out of 0..100 and unknown parameters; a publishable key is refused, an operator session allowed', async () => {
      await expectApiError(await request('GET', '/card_issuers?limit=101'), 'ERR_2003', 'limit');
      await expectApiError(await request('GET', '/card_issuers?limit=-1'), 'ERR_2003', 'limit');
      await expectApiError(await request('GET', '/card_issuers?bin=424242'), 'ERR_2004', 'bin');
      await expectApiError(await request('GET', '/card_issuers', { key: h.publishableKey }), 'ERR_1003');
      const { email, password } = h.boot.createdOperator!;
      const { session_token } = await ok<{ session_token: string }>(await request('POST', '/v1/sessions', { key: null, body: { email, password } }));
      const bySession = await ok<{ issuers: unknown[] }>(await request('GET', '/card_issuers?query=chase', { key: null, headers: { authorization: `Bearer ${session_token}` } }));
      expect(bySession.issuers).toEqual([{ id: 'issuer_chase', issuer_name: 'Chase' }]);
      await expectApiError(await request('GET', '/card_issuers', { key: null, headers: { authorization: 'Bearer ops_unknown' } }), 'ERR_1008');
    });
  });

  describe(`[${engine}] POST /three_ds_decision/execute`, () => {
    const decide = (body: Json) => request('POST', '/three_ds_decision/execute', { body: { routing_id: 'rail_3ds_default', ...body } });
    test('the first rule that holds decides: high value, cross-border, low value, transaction risk analysis, otherwise none', async () => {
      const cases: [Json, string][] = [
        [{ payment: { amount: 150_000, currency: 'EUR' }, issuer: { country: 'DE' }, acquirer: { country: 'FR', fraud_rate: 0.01 } }, 'challenge_requested'],
        [{ payment: { amount: 5_000, currency: 'EUR' }, issuer: { country: 'DE', name: 'Deutsche Bank' }, acquirer: { country: 'FR' } }, 'challenge_preferred'],
        [{ payment: { amount: 2_000, currency: 'EUR' }, issuer: { country: 'DE' }, acquirer: { country: 'DE' } }, 'three_ds_exemption_requested_low_value'],
        [{ payment: { amount: 8_000, currency: 'EUR' }, acquirer: { country: 'DE', fraud_rate: 0.05 }, payment_method: { card_network: 'Visa' } }, 'three_ds_exemption_requested_tra'],
        [{ payment: { amount: 8_000, currency: 'EUR' }, acquirer: { fraud_rate: 0.5 } }, 'no_three_ds'],
        [{ payment: { amount: 20_000, currency: 'EUR' }, acquirer: { fraud_rate: 0.05 }, customer_device: { platform: 'web', device_type: 'desktop' } }, 'no_three_ds'],
      ];
      for (const [body, decision] of cases) expect(await ok(await decide(body)), JSON.stringify(body)).toEqual({ decision });
    });

    test('an unknown routing_id, a missing payment, unknown or wrongly typed inner fields and raw card numbers are refused', async () => {
      await expectApiError(await decide({ routing_id: 'routing_other', payment: { amount: 100, currency: 'EUR' } }), 'ERR_4018', 'routing_id');
      await expectApiError(await decide({}), 'ERR_2001', 'payment');
      await expectApiError(await decide({ payment: { amount: 100, currency: 'EUR', colour: 'red' } }), 'ERR_2004');
      await expectApiError(await decide({ payment: { amount: 1.5, currency: 'EUR' } }), 'ERR_2003');
      await expectApiError(await decide({ payment: { amount: 100, currency: 'EUR' }, issuer: { name: CARDS.success } }), 'ERR_2029', 'issuer');
      await expectApiError(
        await request('POST', '/three_ds_decision/execute', { key: h.publishableKey, body: { routing_id: 'rail_3ds_default', payment: { amount: 100, currency: 'EUR' } } }),
        'ERR_1003',
      );
    });
  });

  describe(`[${engine}] wallet session tokens`, () => {
    test('POST /payments/session_tokens answers a token per wallet the card acquirer offers, in the order asked, and changes nothing', async () => {
      const payment = await createPayment();
      const answer = await ok<{ payment_id: string; client_secret: string; session_token: Json[] }>(
        await request('POST', '/payments/session_tokens', {
          key: h.publishableKey,
          body: { payment_id: payment.payment_id, client_secret: payment.client_secret, wallets: ['paypal', 'venmo', 'google_pay', 'apple_pay'] },
        }),
      );
      expect(answer.payment_id).toBe(payment.payment_id);
      expect(answer.client_secret).toBe(payment.client_secret);
      expect(answer.session_token.map((token) => token['wallet_name'])).toEqual(['paypal', 'google_pay', 'apple_pay']);
      for (const token of answer.session_token) expect(token['connector']).toBe('card_simulator');
      expect(answer.session_token[0]).toMatchObject({ session_token: expect.stringMatching(/^sim_paypal_/), sdk_next_action: { next_action: 'post_session_tokens' } });
      expect(answer.session_token[1]).toMatchObject({ transaction_info: { currency_code: 'USD', total_price: '100.00', total_price_status: 'FINAL' } });
      expect(answer.session_token[2]).toMatchObject({ payment_request_data: { total: { amount: '100.00', type: 'final' } } });
      expect(await retrieve(payment.payment_id!)).toMatchObject({ status: 'requires_payment_method' });
      expect(await events(payment.payment_id!)).toEqual([]);
    });

    test('no card acquirer for the currency: no tokens; another payment\'s secret, an unknown payment and a confirmed payment are refused', async () => {
      const yen = await createPayment({ currency: 'JPY', amount: 500 });
      const none = await ok<{ session_token: unknown[] }>(
        await request('POST', '/payments/session_tokens', { key: h.publishableKey, body: { payment_id: yen.payment_id, client_secret: yen.client_secret, wallets: ['google_pay'] } }),
      );
      expect(none.session_token).toEqual([]);
      const other = await createPayment();
      await expectApiError(
        await request('POST', '/payments/session_tokens', { key: h.publishableKey, body: { payment_id: yen.payment_id, client_secret: other.client_secret, wallets: ['google_pay'] } }),
        'ERR_1005',
      );
      await expectApiError(
        await request('POST', '/payments/session_tokens', { key: h.publishableKey, body: { payment_id: 'pay_unknown', client_secret: other.client_secret, wallets: [] } }),
        // As another payment's client_secret: a publishable key cannot tell which payment ids exist.
        'ERR_1005',
        'client_secret',
      );
      await expectApiError(
        await request('POST', '/payments/session_tokens', { key: h.publishableKey, body: { payment_id: other.payment_id, client_secret: other.client_secret, wallets: ['not_a_wallet'] } }),
        'ERR_2003',
      );
      const paid = await cardPayment(CARDS.success);
      expect(paid.status).toBe('succeeded');
      await expectApiError(
        await request('POST', '/payments/session_tokens', { key: h.publishableKey, body: { payment_id: paid.payment_id, client_secret: paid.client_secret, wallets: ['google_pay'] } }),
        'ERR_4003',
      );
    });

    test('POST /payments/{id}/post_session_tokens opens a PayPal order (next_action invoke_sdk_client) and leaves the status as it was', async () => {
      const payment = await createPayment();
      const post = (body: Json, target = payment) =>
        request('POST', `/payments/${target.payment_id}/post_session_tokens`, { key: h.publishableKey, body: { client_secret: target.client_secret, ...body } });
      const answer = await ok<Json>(await post({ payment_method: 'wallet', payment_method_type: 'paypal' }));
      expect(answer).toEqual({
        payment_id: payment.payment_id,
        status: 'requires_payment_method',
        next_action: { type: 'invoke_sdk_client', next_action_data: { wallet_name: 'paypal', order_id: expect.stringMatching(/^sim_order_/), next_action: 'confirm' } },
      });
      expect(await retrieve(payment.payment_id!)).toMatchObject({ status: 'requires_payment_method', next_action: null });
      await expectApiError(await post({ payment_method: 'wallet', payment_method_type: 'google_pay' }), 'ERR_4004', 'payment_method_type');
      await expectApiError(await post({ payment_method: 'card', payment_method_type: 'credit' }), 'ERR_4004', 'payment_method');
      await expectApiError(await post({ payment_method: 'wallet' }), 'ERR_2001', 'payment_method_type');
      const paid = await cardPayment(CARDS.success);
      await expectApiError(await post({ payment_method: 'wallet', payment_method_type: 'paypal' }, paid), 'ERR_4003');
    });
  });

  describe(`[${engine}] billing sent with a card at confirm`, () => {
    test('payment_method_data.billing stays beside the card summary and the top-level billing is kept, on confirm and retrieve', async () => {
      const methodBilling = { address: { line1: '1 MG Road', city: 'Bengaluru', zip: '560001', country: 'IN', first_name: 'Ada' }, email: 'ada@example.com' };
      const billing = { address: { line1: '221B Baker Street', city: 'London', country: 'GB' }, phone: { number: '2079460000', country_code: '+44' } };
      for (const captureMethod of ['automatic', 'manual']) {
        const created = await createPayment({ capture_method: captureMethod });
        const token = await mintToken(created, CARDS.success);
        const confirmed = await request('POST', `/payments/${created.payment_id}/confirm`, {
          key: h.publishableKey,
          body: { client_secret: created.client_secret, billing, payment_method: 'card', payment_method_data: { psp_token: token.psp_token, billing: methodBilling } },
        });
        const text = await confirmed.clone().text();
        const payment = await ok(confirmed);
        const card = { last4: '4242', card_network: 'Visa', exp_month: '12', exp_year: '2030' };
        for (const view of [payment, await retrieve(created.payment_id)]) {
          expect(view).toMatchObject({ status: captureMethod === 'manual' ? 'requires_capture' : 'succeeded', billing });
          expect(view.payment_method_data).toEqual({ card, billing: methodBilling });
        }
        // The card number and the token never come back; the summary is all the payment keeps of the card.
        expect(text).not.toContain(CARDS.success);
        expect(text).not.toContain(token.psp_token);
      }
    });
  });

  describe(`[${engine}] a psp_token is kept on no payment`, () => {
    const storedMethodData = async (paymentId: string) =>
      (await h.db.selectFrom('payments').select('payment_method_data').where('payment_id', '=', paymentId).executeTakeFirst())?.payment_method_data;

    test('an update without confirm refuses it (ERR_2003) and stores nothing; the token still confirms, with an update or alone', async () => {
      for (const confirmWith of ['update', 'confirm'] as const) {
        const created = await createPayment();
        const token = await mintToken(created, CARDS.success);
        const methodData = { psp_token: token.psp_token, billing: { email: 'ada@example.com' } };
        const refused = await request('POST', `/payments/${created.payment_id}`, { body: { payment_method: 'card', payment_method_data: methodData, description: 'x' } });
        await expectApiError(refused, 'ERR_2003', 'payment_method_data.psp_token');
        expect(await storedMethodData(created.payment_id)).toBeNull();
        expect(await retrieve(created.payment_id)).toMatchObject({ status: 'requires_payment_method', description: null });

        const confirmed = await ok(
          confirmWith === 'update'
            ? await request('POST', `/payments/${created.payment_id}`, { body: { confirm: true, payment_method: 'card', payment_method_data: methodData } })
            : await request('POST', `/payments/${created.payment_id}/confirm`, { body: { payment_method: 'card', payment_method_data: methodData } }),
        );
        expect(confirmed).toMatchObject({ status: 'succeeded', payment_method_data: { card: { last4: '4242' }, billing: methodData.billing } });
        expect(await storedMethodData(created.payment_id)).not.toContain(token.psp_token);
      }
    });

    test('a create refuses one (ERR_4010: it was minted for another payment) before the payment is stored', async () => {
      const other = await createPayment();
      const token = await mintToken(other, CARDS.success);
      for (const confirm of [false, true]) {
        const paymentId = `pay_token_at_create_${engine}_${confirm}`;
        const refused = await request('POST', '/payments', {
          body: { payment_id: paymentId, amount: 10_000, currency: 'USD', confirm, payment_method: 'card', payment_method_data: { psp_token: token.psp_token } },
        });
        await expectApiError(refused, 'ERR_4010', 'payment_method_data.psp_token');
        expect(await h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, paymentId)).toBeUndefined();
      }
    });
  });

  describe(`[${engine}] the simulator's 3DS cards at confirm`, () => {
    test('4000000000003055 authenticates frictionless and succeeds; with force_3ds_challenge it is challenged', async () => {
      const frictionless = await cardPayment(CARDS.frictionless);
      expect(frictionless).toMatchObject({ status: 'succeeded', amount_received: 10_000, next_action: null });
      expect(await events(frictionless.payment_id)).toEqual(['payment_succeeded']);
      const forced = await cardPayment(CARDS.frictionless, { force_3ds_challenge: true });
      expect(forced).toMatchObject({ status: 'requires_customer_action', next_action: { type: 'redirect_to_url', redirect_to_url: expect.stringContaining('/simulator/3ds/') } });
      await answerChallenge((forced.next_action as { redirect_to_url: string }).redirect_to_url, 'complete');
      expect(await retrieve(forced.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      expect(await events(forced.payment_id)).toEqual(['action_required', 'payment_succeeded']);
    });

    test('4000008400001629: the issuer rejects the authentication, the payment fails with authentication_failed', async () => {
      const rejected = await cardPayment(CARDS.rejected);
      expect(rejected).toMatchObject({ status: 'failed', error_code: 'authentication_failed', next_action: null });
      expect(await events(rejected.payment_id)).toEqual(['payment_failed']);
    });
  });

  describe(`[${engine}] card refunds on the simulated acquirer`, () => {
    test('a captured card payment refunds up to what was captured; the documented reason fails a refund; each with its event', async () => {
      const payment = await cardPayment(CARDS.success, { capture_method: 'manual' });
      expect(payment.status).toBe('requires_capture');
      const captured = await ok(await request('POST', `/payments/${payment.payment_id}/capture`, { body: { amount_to_capture: 6_000 } }));
      expect(captured).toMatchObject({ status: 'partially_captured', amount_received: 6_000 });
      const refund = (body: Json) => request('POST', '/refunds', { body: { payment_id: payment.payment_id, ...body } });
      const first = await ok<Json>(await refund({ amount: 2_500 }));
      expect(first).toMatchObject({ status: 'succeeded', amount: 2_500, connector: 'card_simulator' });
      const declined = await ok<Json>(await refund({ amount: 1_000, reason: 'simulate_refund_failure' }));
      expect(declined).toMatchObject({ status: 'failed', error_code: 'SIM_REFUND_DECLINED' });
      await expectApiError(await refund({ amount: 3_501 }), 'ERR_4008');
      expect(await ok<Json>(await refund({ amount: 3_500 }))).toMatchObject({ status: 'succeeded' });
      const refundEvents = await h.db
        .selectFrom('webhook_events')
        .select(['event_type', 'object_id'])
        .where('account_id', '=', h.boot.account.accountId)
        .where('object_id', 'in', [first['refund_id'] as string, declined['refund_id'] as string])
        .execute();
      expect(refundEvents.map((event) => `${event.object_id === first['refund_id'] ? 'first' : 'declined'} ${event.event_type}`).sort()).toEqual([
        'declined refund_failed',
        'first refund_succeeded',
      ]);
    });
  });

  describe(`[${engine}] external 3DS authentication and complete authorize`, () => {
    test('confirm waits with next_action three_ds_invoke; frictionless Y; complete_authorize authorizes with its event', async () => {
      const payment = await external(CARDS.frictionless);
      expect(payment).toMatchObject({
        status: 'requires_customer_action',
        next_action: {
          type: 'three_ds_invoke',
          three_ds_data: {
            three_ds_authentication_url: expect.stringMatching(new RegExp(`/payments/${payment.payment_id}/3ds/authentication$`)),
            three_ds_authorize_url: expect.stringMatching(new RegExp(`/payments/${payment.payment_id}/complete_authorize$`)),
            message_version: '2.2.0',
          },
        },
      });
      await expectApiError(await completeAuthorize(payment), 'ERR_4017');
      const result = await ok<Json>(await authenticate(payment, { device_channel: 'APP', threeds_method_comp_ind: 'U', sdk_information: { sdk_app_id: 'app' } }));
      expect(result).toMatchObject({ trans_status: 'Y', acs_url: null, challenge_request: null, error_message: null, acs_trans_id: expect.stringMatching(/^acs_/), three_dsserver_trans_id: expect.stringMatching(/^3dss_/) });
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'requires_customer_action', amount_received: null });
      await expectApiError(await authenticate(payment), 'ERR_4016');
      const done = await ok(await completeAuthorize(payment, { threeds_method_comp_ind: 'N' }));
      expect(done).toMatchObject({ status: 'succeeded', amount_received: 10_000, next_action: null, connector: 'card_simulator' });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      await expectApiError(await completeAuthorize(payment), 'ERR_4003');
      await expectApiError(await authenticate(payment), 'ERR_4003');
    });

    test('manual capture: complete_authorize lands in requires_capture and keeps the shipping sent; a declining card fails there', async () => {
      const payment = await external(CARDS.success, { capture_method: 'manual' });
      expect((await ok<Json>(await authenticate(payment)))['trans_status']).toBe('Y');
      const shipping = { address: { city: 'Pune', country: 'IN' } };
      expect(await ok(await completeAuthorize(payment, { shipping }))).toMatchObject({ status: 'requires_capture', amount_capturable: 10_000, shipping });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_authorized']);

      const declined = await external(CARDS.declined);
      expect((await ok<Json>(await authenticate(declined)))['trans_status']).toBe('Y');
      expect(await ok(await completeAuthorize(declined))).toMatchObject({ status: 'failed', error_code: 'card_declined' });
      expect(await events(declined.payment_id)).toEqual(['action_required', 'payment_failed']);
    });

    test('challenge C: acs_url is the simulator page, the payment redirects there; completing it authorizes, failing it fails', async () => {
      for (const [number, fields] of [[CARDS.challenge, {}], [CARDS.frictionless, { force_3ds_challenge: true }]] as const) {
        const payment = await external(number, fields);
        const result = await ok<{ trans_status: string; acs_url: string; challenge_request: string }>(await authenticate(payment));
        expect(result.trans_status).toBe('C');
        expect(result.acs_url).toContain(`/simulator/3ds/${payment.payment_id}?`);
        const creq = JSON.parse(Buffer.from(result.challenge_request, 'base64url').toString('utf8')) as Json;
        expect(creq).toMatchObject({ messageType: 'CReq', messageVersion: '2.2.0' });
        expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'requires_customer_action', next_action: { type: 'redirect_to_url', redirect_to_url: result.acs_url } });
        await expectApiError(await completeAuthorize(payment), 'ERR_4017');
        await answerChallenge(result.acs_url, 'complete');
        expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
        expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      }
      const failing = await external(CARDS.challenge);
      const result = await ok<{ acs_url: string }>(await authenticate(failing));
      await answerChallenge(result.acs_url, 'fail');
      expect(await retrieve(failing.payment_id)).toMatchObject({ status: 'failed', error_code: 'authentication_failed' });
      expect(await events(failing.payment_id)).toEqual(['action_required', 'payment_failed']);
    });

    test('rejected N fails the payment with its event; an expired authentication fails on the next read', async () => {
      const rejected = await external(CARDS.rejected);
      expect(await ok<Json>(await authenticate(rejected))).toMatchObject({ trans_status: 'N', acs_url: null, error_message: 'authentication_failed' });
      expect(await retrieve(rejected.payment_id)).toMatchObject({ status: 'failed', error_code: 'authentication_failed' });
      expect(await events(rejected.payment_id)).toEqual(['action_required', 'payment_failed']);
      await expectApiError(await completeAuthorize(rejected), 'ERR_4003');

      const late = await external(CARDS.frictionless);
      h.clock.advance(THREE_DS_VALIDITY_MS);
      await expectApiError(await authenticate(late), 'ERR_4016');
      expect(await retrieve(late.payment_id)).toMatchObject({ status: 'failed', error_code: 'authentication_expired' });
    });

    test('refused: a payment without external 3DS, before confirm, a wrong client_secret, bad enums, raw card data, a secret key', async () => {
      const internal = await cardPayment(CARDS.challenge);
      expect(internal.status).toBe('requires_customer_action');
      await expectApiError(await authenticate(internal), 'ERR_4016');
      await expectApiError(await completeAuthorize(internal), 'ERR_4017');
      const unconfirmed = await createPayment({ request_external_three_ds_authentication: true });
      const fresh = { payment_id: unconfirmed.payment_id, client_secret: unconfirmed.client_secret! };
      await expectApiError(await authenticate(fresh), 'ERR_4003');
      await expectApiError(await completeAuthorize(fresh), 'ERR_4003');

      const payment = await external(CARDS.frictionless);
      await expectApiError(await authenticate({ ...payment, client_secret: fresh.client_secret }), 'ERR_1005');
      await expectApiError(await authenticate(payment, { device_channel: 'TV' }), 'ERR_2003', 'device_channel');
      await expectApiError(await authenticate(payment, { threeds_method_comp_ind: undefined }), 'ERR_2001', 'threeds_method_comp_ind');
      await expectApiError(await authenticate(payment, { sdk_information: { note: CARDS.success } }), 'ERR_2029', 'sdk_information');
      await expectApiError(await completeAuthorize(payment, { shipping: { line1: CARDS.success } }), 'ERR_2029', 'shipping');
      await expectApiError(
        await request('POST', `/payments/${payment.payment_id}/3ds/authentication`, { body: { device_channel: 'BRW', threeds_method_comp_ind: 'N' } }),
        'ERR_1003',
      );
      // None of the refusals moved it.
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'requires_customer_action', next_action: { type: 'three_ds_invoke' } });
      expect(await events(payment.payment_id)).toEqual(['action_required']);
    });

    test('two concurrent authentications of one payment: exactly one answers, the other gets ERR_4016', async () => {
      const payment = await external(CARDS.frictionless);
      const answers = await Promise.all([authenticate(payment), authenticate(payment)]);
      const statuses = answers.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 400]);
      const refused = answers.find((response) => response.status === 400)!;
      await expectApiError(refused, 'ERR_4016');
      expect(await ok(await completeAuthorize(payment))).toMatchObject({ status: 'succeeded' });
    });

    test('two concurrent complete_authorize calls authorize once: one rail answer kept, one event', async () => {
      const payment = await external(CARDS.frictionless);
      await ok(await authenticate(payment));
      const answers = await Promise.all([completeAuthorize(payment), completeAuthorize(payment)]);
      for (const response of answers) {
        if (response.status === 200) expect(await response.json()).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
        else await expectApiError(response, 'ERR_4003');
      }
      expect(answers.map((response) => response.status)).toContain(200);
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      const kept = await h.db
        .selectFrom('rail_ledger')
        .select(['operation'])
        .where('account_id', '=', h.boot.account.accountId)
        .where('operation', '=', 'complete_authorization')
        .where('reference', '=', String((await retrieve(payment.payment_id)).reference_id))
        .execute();
      expect(kept).toHaveLength(1);
    });
  });
});
