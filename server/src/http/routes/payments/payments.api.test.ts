/**
 * The API suite: every error path and the payments slice, through app.request() (no port). It runs on SQLite
 * and PostgreSQL (forEachEngine).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ErrorCode } from '../../../../../protocol/errors';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { PENDING_RESOLVE_AFTER_MS } from '../../../rails/simulator/upi-simulator';
import { CLIENT_RAIL_SYNC_INTERVAL_MS } from '../../../core/payments/client-rail-syncs';
import type { Engine } from '../../../storage/database';
import { apiRequest, expectApiError, insertLiveSecretKey, type ApiRequestOptions } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';
import { demoKey } from '../../../core/accounts/ensure-demo-account';

type Json = Record<string, unknown>;

const UPI = (vpa: string) => ({ upi: { upi_collect: { vpa_id: vpa } } });

forEachEngine('Payments API', (engine) => {
  let h: Harness;
  let liveSecretKey: string;

  beforeAll(async () => {
    h = await createHarness(engine);
    // A live-mode key for the same account, to prove mode isolation.
    liveSecretKey = await insertLiveSecretKey(h, { fill: 'L', keyId: 'key_live_for_tests_000' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: ApiRequestOptions = {}) => apiRequest(h, method, path, options);
  const json = async (response: Response) => (await response.json()) as Json;
  const expectError = (response: Response, code: ErrorCode, fieldName?: string) => expectApiError(response, code, fieldName, { exactEnvelope: true });
  const createPayment = async (body: Json = {}, key?: string) => {
    const response = await request('POST', '/payments', { key, body: { amount: 10_000, currency: 'INR', ...body } });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as PaymentResponse;
  };
  const confirm = (paymentId: string, body: Json = {}, key?: string) =>
    request('POST', `/payments/${paymentId}/confirm`, { key, body });

  describe(`[${engine}] system`, () => {
    test('GET /health answers 200 when the store is ready', async () => {
      const response = await request('GET', '/health', { key: null });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    test('GET /openapi.json documents the routes from the same schemas', async () => {
      const response = await request('GET', '/openapi.json', { key: null });
      expect(response.status).toBe(200);
      const doc = (await response.json()) as { openapi: string; paths: Record<string, Json>; components: { schemas: Json } };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/payments', '/payments/{payment_id}/confirm', '/payments/{payment_id}', '/account/payment_methods', '/health']),
      );
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['CreatePaymentRequest', 'Payment', 'Error']));
    });

    test('CORS preflight allows any origin and the key headers, without credentials', async () => {
      const response = await h.app.request('/payments', {
        method: 'OPTIONS',
        headers: { Origin: 'http://127.0.0.1:8081', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'api-key,content-type' },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-headers')).toBe('api-key,authorization,content-type,idempotency-key');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    });

    test('error responses carry the CORS header too, so browsers can read them', async () => {
      const response = await h.app.request('/payments/pay_x', { headers: { Origin: 'http://localhost:3000' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    });

    test('responses carry a request id', async () => {
      const response = await request('GET', '/health', { key: null, headers: { 'x-request-id': 'req-123' } });
      expect(response.headers.get('x-request-id')).toBe('req-123');
    });
  });

  describe(`[${engine}] error envelope`, () => {
    test('unknown route: 404 ERR_2006', async () => {
      await expectError(await request('GET', '/nowhere'), 'ERR_2006');
    });

    test('wrong method: 405 ERR_2007 with Allow', async () => {
      const response = await request('DELETE', '/payments');
      expect(response.headers.get('allow')).toBe('POST');
      await expectError(response, 'ERR_2007');
      await expectError(await request('PUT', '/payments/pay_x/confirm'), 'ERR_2007');
    });

    test('malformed JSON: ERR_2005', async () => {
      await expectError(await request('POST', '/payments', { raw: '{"amount": 1,' }), 'ERR_2005');
    });

    test('a NUL character (which PostgreSQL text cannot hold) in the URL or a body string: ERR_2003, never a 5xx', async () => {
      await expectError(await request('GET', '/customers/%00'), 'ERR_2003');
      await expectError(await request('GET', '/payments/pay_%00x'), 'ERR_2003');
      await expectError(await request('GET', '/payments/list?customer_id=a%00b'), 'ERR_2003');
      await expectError(
        await request('POST', '/payments', { raw: '{"amount": 100, "currency": "INR", "description": "a\\u0000b"}' }),
        'ERR_2003',
        'description',
      );
      await expectError(
        await request('POST', '/payments', { raw: '{"amount": 100, "currency": "INR", "metadata": {"k": "\\u0000"}}' }),
        'ERR_2003',
        'metadata.k',
      );
    });

    test.each(['[1,2]', '"text"', 'null', '42'])('a body that is not an object (%s): ERR_2005', async (raw) => {
      await expectError(await request('POST', '/payments', { raw }), 'ERR_2005');
    });

    test('unknown field: ERR_2004 naming it, also nested', async () => {
      await expectError(await request('POST', '/payments', { body: { amount: 1, currency: 'INR', colour: 'red' } }), 'ERR_2004', 'colour');
      await expectError(
        await request('POST', '/payments', { body: { amount: 1, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'a@b', extra: 1 } } } } }),
        'ERR_2004',
        'payment_method_data.upi.upi_collect.extra',
      );
    });

    test.each([
      [{ currency: 'INR' }, 'amount'],
      [{ amount: 100 }, 'currency'],
      [{}, 'amount'],
    ])('missing required field (%o): ERR_2001 naming %s', async (body, field) => {
      await expectError(await request('POST', '/payments', { body }), 'ERR_2001', field);
    });

    test('no body at all is a missing amount', async () => {
      await expectError(await request('POST', '/payments'), 'ERR_2001', 'amount');
    });

    test.each<[Json, string]>([
      [{ amount: '100', currency: 'INR' }, 'amount'],
      [{ amount: -1, currency: 'INR' }, 'amount'],
      [{ amount: 1.5, currency: 'INR' }, 'amount'],
      [{ amount: 2 ** 60, currency: 'INR' }, 'amount'],
      [{ amount: 1, currency: 'XXX' }, 'currency'],
      [{ amount: 1, currency: 'INR', capture_method: 'later' }, 'capture_method'],
      [{ amount: 1, currency: 'INR', confirm: 'yes' }, 'confirm'],
      [{ amount: 1, currency: 'INR', payment_id: 'has space' }, 'payment_id'],
      [{ amount: 1, currency: 'INR', payment_id: 'p'.repeat(63) }, 'payment_id'],
      [{ amount: 1, currency: 'INR', payment_id: '' }, 'payment_id'],
      [{ amount: 1, currency: 'INR', customer_id: 'c'.repeat(65) }, 'customer_id'],
      [{ amount: 1, currency: 'INR', return_url: `https://x.test/${'a'.repeat(2040)}` }, 'return_url'],
      [{ amount: 1, currency: 'INR', return_url: 'javascript:alert(1)' }, 'return_url'],
      [{ amount: 1, currency: 'INR', mandate_id: 'm'.repeat(65) }, 'mandate_id'],
      [{ amount: 1, currency: 'INR', merchant_order_reference_id: 'r'.repeat(256) }, 'merchant_order_reference_id'],
      [{ amount: 1, currency: 'INR', statement_descriptor_name: 'r'.repeat(256) }, 'statement_descriptor_name'],
      [{ amount: 1, currency: 'INR', session_expiry: -1 }, 'session_expiry'],
      [{ amount: 1, currency: 'INR', session_expiry: 2 ** 31 }, 'session_expiry'],
      [{ amount: 1, currency: 'INR', business_country: 'XX' }, 'business_country'],
      [{ amount: 1, currency: 'INR', order_date: 'yesterday' }, 'order_date'],
      [{ amount: 1, currency: 'INR', allowed_payment_method_types: ['teleport'] }, 'allowed_payment_method_types[0]'],
      [{ amount: 1, currency: 'INR', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ amount: 1, currency: 'INR', metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
      [{ amount: 1, currency: 'INR', metadata: { note: 'v'.repeat(501) } }, 'metadata.note'],
      [{ amount: 1, currency: 'INR', amount_to_capture: 2 }, 'amount_to_capture'],
      // Automatic capture (the default) captures the whole amount at authorization: a smaller amount_to_capture is refused.
      [{ amount: 10_000, currency: 'INR', amount_to_capture: 5_000 }, 'amount_to_capture'],
      [{ amount: 10_000, currency: 'INR', amount_to_capture: 5_000, capture_method: 'sequential_automatic' }, 'amount_to_capture'],
      [{ amount: 1, currency: 'INR', request_extended_authorization: true }, 'request_extended_authorization'],
      [{ amount: 10, currency: 'INR', order_details: [{ product_name: 'a', quantity: 2, amount: 4 }] }, 'order_details'],
      [{ amount: 1, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'a@b' } }, wallet: { paypal_sdk: { token: 'x' } } } }, 'payment_method_data'],
      [{ amount: 1, currency: 'INR', payment_method_data: { wallet: {} } }, 'payment_method_data.wallet'],
    ])('wrong type or limit #%$: ERR_2003 naming the field', async (body, field) => {
      await expectError(await request('POST', '/payments', { body }), 'ERR_2003', field);
    });

    const ONLINE_ACCEPTANCE = { acceptance_type: 'online', online: { user_agent: 'checkout' } };
    test.each<[unknown, 'ERR_2001' | 'ERR_2003' | 'ERR_2004', string]>([
      ['multi_use', 'ERR_2003', 'mandate_data.mandate_type'],
      [{}, 'ERR_2003', 'mandate_data.mandate_type'],
      [{ single_use: { amount: 100, currency: 'INR' }, multi_use: null }, 'ERR_2003', 'mandate_data.mandate_type'],
      [{ weekly: { amount: 100, currency: 'INR' } }, 'ERR_2004', 'mandate_data.mandate_type.weekly'],
      [{ single_use: null }, 'ERR_2003', 'mandate_data.mandate_type.single_use'],
      [{ single_use: { currency: 'INR' } }, 'ERR_2001', 'mandate_data.mandate_type.single_use.amount'],
      [{ single_use: { amount: 100 } }, 'ERR_2001', 'mandate_data.mandate_type.single_use.currency'],
      [{ single_use: { amount: 0, currency: 'INR' } }, 'ERR_2003', 'mandate_data.mandate_type.single_use.amount'],
      [{ single_use: { amount: 1.5, currency: 'INR' } }, 'ERR_2003', 'mandate_data.mandate_type.single_use.amount'],
      [{ multi_use: { amount: '100', currency: 'INR' } }, 'ERR_2003', 'mandate_data.mandate_type.multi_use.amount'],
      [{ multi_use: { amount: 100, currency: 'XXX' } }, 'ERR_2003', 'mandate_data.mandate_type.multi_use.currency'],
      [{ multi_use: { amount: 100, currency: 'INR', end_date: 'soon' } }, 'ERR_2003', 'mandate_data.mandate_type.multi_use.end_date'],
      [{ multi_use: { amount: 100, currency: 'INR', start_date: '2027-02-01T00:00:00Z', end_date: '2027-01-01T00:00:00Z' } }, 'ERR_2003', 'mandate_data.mandate_type.multi_use.end_date'],
      [{ multi_use: { amount: 100, currency: 'INR', frequency: 'monthly' } }, 'ERR_2004', 'mandate_data.mandate_type.multi_use.frequency'],
    ])('mandate_data.mandate_type #%$ is refused at the edge, naming the field path', async (mandateType, code, field) => {
      const body = { amount: 100, currency: 'INR', mandate_data: { customer_acceptance: ONLINE_ACCEPTANCE, mandate_type: mandateType } };
      await expectError(await request('POST', '/payments', { body }), code, field);
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id, { mandate_data: body.mandate_data }), code, field);
      await expectError(await request('POST', `/payments/${payment.payment_id}`, { body: { mandate_data: body.mandate_data } }), code, field);
    });

    test.each<[string, unknown]>([
      ['multi_use without amount data', { multi_use: null }],
      ['multi_use with amount data', { multi_use: { amount: 5_000, currency: 'INR', start_date: '2027-01-01T00:00:00Z', end_date: '2028-01-01T00:00:00Z', metadata: { plan: 'gold' } } }],
      ['single_use', { single_use: { amount: 5_000, currency: 'INR', end_date: null } }],
      ['null', null],
    ])('mandate_data.mandate_type %s is accepted', async (_name, mandateType) => {
      await createPayment({ mandate_data: { customer_acceptance: ONLINE_ACCEPTANCE, mandate_type: mandateType } });
    });

    test('metadata at its limits is accepted', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${'k'.repeat(37)}${String(i).padStart(3, '0')}`, 'v'.repeat(500)]));
      const payment = await createPayment({ metadata });
      expect(payment.metadata).toEqual(metadata);
    });

    test('a non-JSON content type: 415 ERR_2008', async () => {
      await expectError(await request('POST', '/payments', { raw: 'amount=1', headers: { 'content-type': 'text/plain' } }), 'ERR_2008');
    });

    test('an oversized body: 413 ERR_2009', async () => {
      await expectError(await request('POST', '/payments', { raw: JSON.stringify({ amount: 1, currency: 'INR', description: 'x'.repeat(300_000) }) }), 'ERR_2009');
    });

    test('GET ignores a body (over a real socket: fetch cannot send one)', async () => {
      const payment = await createPayment();
      const server = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 });
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      try {
        const { port } = server.address() as AddressInfo;
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, method: 'GET', path: `/payments/${payment.payment_id}`, headers: { 'api-key': h.secretKey, 'content-type': 'application/json', 'content-length': '2' } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end('{}');
        });
        expect(status).toBe(200);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    test('unknown query parameter: ERR_2004', async () => {
      const payment = await createPayment();
      await expectError(await request('GET', `/payments/${payment.payment_id}?colour=red`), 'ERR_2004', 'colour');
    });

    test('nothing a request sends answers 5xx (property)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (value) => {
          const response = await request('POST', '/payments', { raw: JSON.stringify(value) });
          expect(response.status).toBeLessThan(500);
          const body = await json(response);
          if (response.status !== 200) expect(Object.keys(body)).toEqual(['error']);
        }),
        { numRuns: 60 },
      );
    });
  });

  describe(`[${engine}] raw card numbers (ERR_2029)`, () => {
    test('payment_method_data.card with card_number is refused, without echoing it', async () => {
      const error = await expectError(
        await request('POST', '/payments', { body: { amount: 1, currency: 'INR', payment_method_data: { card: { card_number: '4242424242424242', card_cvc: '123' } } } }),
        'ERR_2029',
        'payment_method_data',
      );
      expect(JSON.stringify(error)).not.toContain('4242');
    });

    test('a Luhn-valid number anywhere in payment_method_data is refused, even with other errors in the body', async () => {
      await expectError(
        await request('POST', '/payments', { body: { amount: 'bad', currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: '4111 1111 1111 1111' } } } } }),
        'ERR_2029',
      );
    });

    test('refused at confirm too, with a publishable key', async () => {
      const payment = await createPayment();
      await expectError(
        await confirm(payment.payment_id, { payment_method_data: { card: { card_number: '5555555555554444' } } }, h.publishableKey),
        'ERR_2029',
      );
    });
  });

  describe(`[${engine}] authentication`, () => {
    test('no key: 401 ERR_1001', async () => {
      await expectError(await request('POST', '/payments', { key: null, body: { amount: 1, currency: 'INR' } }), 'ERR_1001');
    });

    test.each(['nonsense', `rail_full_test_${'x'.repeat(10)}`, `rail_full_test_${'Z'.repeat(40)}`, `rail_open_test_${'Z'.repeat(40)}`])(
      'malformed or unknown key %s: 401 ERR_1002',
      async (key) => {
        await expectError(await request('POST', '/payments', { key, body: { amount: 1, currency: 'INR' } }), 'ERR_1002');
      },
    );

    test('Authorization: Bearer works like api-key', async () => {
      const response = await request('POST', '/payments', {
        key: null,
        headers: { authorization: `Bearer ${h.secretKey}` },
        body: { amount: 1, currency: 'INR' },
      });
      expect(response.status).toBe(200);
    });

    test('a publishable key cannot create: 401 ERR_1003', async () => {
      await expectError(await request('POST', '/payments', { key: h.publishableKey, body: { amount: 1, currency: 'INR' } }), 'ERR_1003');
    });

    test('live keys do not see test data', async () => {
      const payment = await createPayment();
      await expectError(await request('GET', `/payments/${payment.payment_id}`, { key: liveSecretKey }), 'ERR_4001');
    });

    test('a live UPI payment needs a provisioned rail: ERR_3010', async () => {
      const payment = await createPayment({}, liveSecretKey);
      await expectError(await confirm(payment.payment_id, { payment_method_data: UPI('success@upi') }, liveSecretKey), 'ERR_3010');
    });
  });

  describe(`[${engine}] create`, () => {
    test('generates payment_id, client_secret and expires_on; status requires_payment_method', async () => {
      const payment = await createPayment();
      expect(payment.payment_id).toMatch(/^pay_[A-Za-z0-9]{20}$/);
      expect(payment.client_secret).toMatch(new RegExp(`^${payment.payment_id}_secret_[A-Za-z0-9]{20}$`));
      expect(payment.status).toBe('requires_payment_method');
      expect(payment).toMatchObject({ amount: 10_000, currency: 'INR', amount_capturable: 10_000, amount_received: null, capture_method: 'automatic' });
      expect(new Date(payment.expires_on).getTime() - new Date(payment.created).getTime()).toBe(900_000);
    });

    test('session_expiry sets the client_secret lifetime', async () => {
      const payment = await createPayment({ session_expiry: 60 });
      expect(new Date(payment.expires_on).getTime() - new Date(payment.created).getTime()).toBe(60_000);
    });

    test('with payment_method_data and no confirm: requires_confirmation', async () => {
      const payment = await createPayment({ payment_method_data: UPI('success@upi') });
      expect(payment.status).toBe('requires_confirmation');
      expect(payment).toMatchObject({ payment_method: 'upi', payment_method_type: 'upi_collect' });
    });

    test('confirm: true with UPI success confirms at once', async () => {
      const payment = await createPayment({ confirm: true, payment_method_data: UPI('success@upi') });
      expect(payment).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0, connector: 'upi_simulator' });
    });

    test('every field of the request table is accepted', async () => {
      const body = {
        amount: 12_000,
        currency: 'INR',
        order_tax_amount: 100,
        amount_to_capture: 12_000,
        shipping_cost: 500,
        payment_id: `all_fields_${engine}`,
        connector: ['upi_simulator'],
        capture_method: 'automatic',
        authentication_type: 'no_three_ds',
        confirm: false,
        customer_id: 'cus_123',
        off_session: false,
        description: 'All fields',
        return_url: 'https://shop.example.com/return',
        setup_future_usage: 'on_session',
        payment_method_data: UPI('success@upi'),
        payment_method: 'upi',
        payment_method_type: 'upi_collect',
        payment_token: 'token_1',
        payment_experience: 'display_wait_screen',
        statement_descriptor_name: 'SHOP',
        statement_descriptor_suffix: 'ORDER',
        customer_acceptance: { acceptance_type: 'online', online: { user_agent: 'checkout' } },
        business_country: 'IN',
        business_label: 'default',
        allowed_payment_method_types: ['upi_collect'],
        metadata: { order: '42', nested: { a: 1 } },
        payment_link: false,
        payment_link_config_id: 'plc_1',
        profile_id: h.boot.profile.profileId,
        payment_type: 'normal',
        request_incremental_authorization: false,
        session_expiry: 900,
        frm_metadata: { score: 1 },
        request_external_three_ds_authentication: false,
        request_extended_authorization: false,
        merchant_order_reference_id: 'order-42',
        skip_external_tax_calculation: true,
        psd2_sca_exemption_type: 'low_value',
        force_3ds_challenge: false,
        threeds_method_comp_ind: 'N',
        is_iframe_redirection_enabled: false,
        all_keys_required: false,
        tax_status: 'taxable',
        discount_amount: 0,
        shipping_amount_tax: 0,
        duty_amount: 0,
        order_date: '2025-01-01T10:00:00Z',
        enable_partial_authorization: false,
        enable_overcapture: false,
        is_stored_credential: false,
        mit_category: 'unscheduled',
        tokenization: 'skip_psp',
        billing: { address: { city: 'Pune' } },
        shipping: { address: { city: 'Pune' } },
        order_details: [{ product_name: 'Tea', quantity: 2, amount: 6000 }],
        browser_info: { user_agent: 'test' },
      };
      const payment = await createPayment(body);
      expect(payment).toMatchObject({
        payment_id: `all_fields_${engine}`,
        status: 'requires_confirmation',
        net_amount: 12_600,
        shipping_cost: 500,
        order_tax_amount: 100,
        customer_id: 'cus_123',
        description: 'All fields',
        return_url: 'https://shop.example.com/return',
        setup_future_usage: 'on_session',
        merchant_order_reference_id: 'order-42',
        profile_id: h.boot.profile.profileId,
        metadata: { order: '42', nested: { a: 1 } },
      });
    });

    test('an unknown profile_id: ERR_2003', async () => {
      await expectError(await request('POST', '/payments', { body: { amount: 1, currency: 'INR', profile_id: 'pro_nope' } }), 'ERR_2003', 'profile_id');
    });

    test('payment_id idempotency: same body replays the stored payment, another body is a 409', async () => {
      const id = `order_${engine}_idem`;
      const first = await createPayment({ payment_id: id, metadata: { a: '1', b: '2' }, description: 'x' });
      const replay = await request('POST', '/payments', { body: { description: 'x', metadata: { b: '2', a: '1' }, currency: 'INR', amount: 10_000, payment_id: id } });
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual(first);
      await expectError(await request('POST', '/payments', { body: { payment_id: id, amount: 10_001, currency: 'INR' } }), 'ERR_4002', 'payment_id');
    });

    test('concurrent creates with one payment_id store one payment', async () => {
      const id = `order_${engine}_race`;
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => request('POST', '/payments', { body: { payment_id: id, amount: 500, currency: 'INR' } })),
      );
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<PaymentResponse>));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(new Set(bodies.map((b) => b.client_secret)).size).toBe(1);
    });
  });

  describe(`[${engine}] confirm`, () => {
    test('success@upi: succeeded with amount_received = amount, one payment_succeeded event', async () => {
      const payment = await createPayment({ payment_method_data: UPI('success@upi') });
      const response = await confirm(payment.payment_id);
      expect(response.status).toBe(200);
      const confirmed = (await response.json()) as PaymentResponse;
      expect(confirmed).toMatchObject({ status: 'succeeded', amount_received: 10_000, amount_capturable: 0, error_code: null, next_action: null });
      expect(confirmed.reference_id).toMatch(/^sim_/);
      const events = await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, payment.payment_id);
      expect(events.map((e) => e.eventType)).toEqual(['payment_succeeded']);
      expect(events[0]?.payload).toMatchObject({ event_type: 'payment_succeeded', mode: 'test', content: { type: 'payment_details', object: { status: 'succeeded' } } });
    });

    test('failure@upi: failed with error_code and error_message, payment_failed event', async () => {
      const payment = await createPayment();
      const confirmed = (await (await confirm(payment.payment_id, { payment_method_data: UPI('failure@upi') })).json()) as PaymentResponse;
      expect(confirmed).toMatchObject({ status: 'failed', error_code: 'DC_06', error_message: 'Payment is not successful', amount_received: null, amount_capturable: 0 });
      const events = await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, payment.payment_id);
      expect(events.map((e) => e.eventType)).toEqual(['payment_failed']);
    });

    test('an unknown VPA is declined', async () => {
      const payment = await createPayment();
      const confirmed = (await (await confirm(payment.payment_id, { payment_method_data: UPI('someone@okbank') })).json()) as PaymentResponse;
      expect(confirmed).toMatchObject({ status: 'failed', error_code: 'DC_08' });
    });

    test('pending@upi: waits for the customer, then succeeds on retrieve after the simulated delay', async () => {
      const payment = await createPayment();
      const started = h.clock.now().getTime();
      const waiting = (await (await confirm(payment.payment_id, { client_secret: payment.client_secret, payment_method_data: UPI('pending@upi') }, h.publishableKey)).json()) as PaymentResponse;
      expect(waiting.status).toBe('requires_customer_action');
      expect(waiting.next_action).toEqual({
        type: 'wait_screen_information',
        display_from_timestamp: started,
        display_to_timestamp: started + 300_000,
        poll_interval_ms: 2000,
      });
      const retrieve = async () =>
        (await (await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, { key: h.publishableKey })).json()) as PaymentResponse;
      // A publishable key's reads ask the rail at most once a second (client-rail-syncs.ts).
      h.clock.advance(PENDING_RESOLVE_AFTER_MS - CLIENT_RAIL_SYNC_INTERVAL_MS);
      expect((await retrieve()).status).toBe('requires_customer_action');
      h.clock.advance(CLIENT_RAIL_SYNC_INTERVAL_MS);
      const done = await retrieve();
      expect(done).toMatchObject({ status: 'succeeded', amount_received: 10_000, next_action: null });
      expect((await retrieve()).status).toBe('succeeded');
      const events = await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, payment.payment_id);
      expect(events.map((e) => e.eventType)).toEqual(['action_required', 'payment_succeeded']);
    });

    test('pending-failure@upi: waits, then fails', async () => {
      const payment = await createPayment();
      await confirm(payment.payment_id, { payment_method_data: UPI('pending-failure@upi') });
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      const done = (await (await request('GET', `/payments/${payment.payment_id}`)).json()) as PaymentResponse;
      expect(done).toMatchObject({ status: 'failed', error_code: 'DC_06' });
    });

    test('confirm in a non-confirmable status: ERR_4003', async () => {
      const payment = await createPayment({ confirm: true, payment_method_data: UPI('success@upi') });
      await expectError(await confirm(payment.payment_id, { payment_method_data: UPI('success@upi') }), 'ERR_4003');
    });

    test('confirm without payment method data: ERR_4005', async () => {
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id), 'ERR_4005', 'payment_method_data');
    });

    test('confirm of an unknown payment: 404 ERR_4001', async () => {
      await expectError(await confirm('pay_doesnotexist000000', { payment_method_data: UPI('success@upi') }), 'ERR_4001');
    });

    test('confirm cannot change what the payment charges', async () => {
      const payment = await createPayment();
      await expectError(
        await confirm(payment.payment_id, { client_secret: payment.client_secret, amount: 1, payment_method_data: UPI('success@upi') }, h.publishableKey),
        'ERR_2003',
        'amount',
      );
      const same = await confirm(payment.payment_id, { amount: 10_000, currency: 'INR', payment_method_data: UPI('success@upi') });
      expect(same.status).toBe(200);
    });

    test('confirm applies return_url', async () => {
      const payment = await createPayment();
      const confirmed = (await (await confirm(payment.payment_id, { return_url: 'https://shop.example.com/done', payment_method_data: UPI('success@upi') })).json()) as PaymentResponse;
      expect(confirmed.return_url).toBe('https://shop.example.com/done');
    });

    test('the customer_acceptance, browser_info, payment_experience, threeds_method_comp_ind and all_keys_required sent at confirm replace the payment\'s', async () => {
      const atCreate = {
        customer_acceptance: { acceptance_type: 'offline' },
        browser_info: { user_agent: 'create' },
        payment_experience: 'display_qr_code',
        threeds_method_comp_ind: 'N',
        all_keys_required: false,
      };
      const atConfirm = {
        customer_acceptance: { acceptance_type: 'online', online: { user_agent: 'checkout', ip_address: '203.0.113.7' } },
        browser_info: { user_agent: 'confirm', language: 'en-IN' },
        payment_experience: 'display_wait_screen',
        threeds_method_comp_ind: 'Y',
        all_keys_required: true,
      };
      const payment = await createPayment({ ...atCreate, description: 'kept' });
      const response = await confirm(payment.payment_id, { client_secret: payment.client_secret, payment_method_data: UPI('success@upi'), ...atConfirm }, h.publishableKey);
      expect(response.status, await response.clone().text()).toBe(200);
      const stored = await h.store.payments.findPayment({ accountId: h.boot.account.accountId, mode: 'test' }, payment.payment_id);
      // The response has no field for these (Hyperswitch clients read them from the attempt): they are kept as sent.
      expect(stored?.requestFields).toMatchObject({ ...atConfirm, description: 'kept' });
    });

    test('a currency no rail takes for the method: ERR_4004', async () => {
      const payment = await createPayment({ currency: 'USD' });
      await expectError(await confirm(payment.payment_id, { payment_method_data: UPI('success@upi') }), 'ERR_4004');
    });

    test('upi_intent outside allowed_payment_method_types: ERR_4004 (the simulator offers it since UPI intent / QR)', async () => {
      const payment = await createPayment({ allowed_payment_method_types: ['upi_collect'] });
      await expectError(await confirm(payment.payment_id, { payment_method_data: { upi: { upi_intent: {} } } }), 'ERR_4004');
    });

    test('cards are not enabled: a psp_token confirm is ERR_4004', async () => {
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id, { payment_method_data: { psp_token: 'tok_123' } }), 'ERR_4004');
    });

    test('manual capture on an automatic-capture rail: ERR_4012', async () => {
      const payment = await createPayment({ capture_method: 'manual' });
      await expectError(await confirm(payment.payment_id, { payment_method_data: UPI('success@upi') }), 'ERR_4012', 'capture_method');
    });

    test('an off-session charge has no usable mandate: ERR_4088', async () => {
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id, { off_session: true, payment_method_data: UPI('success@upi') }), 'ERR_4088', 'off_session');
    });

    test('allowed_payment_method_types restricts confirm', async () => {
      const payment = await createPayment({ allowed_payment_method_types: ['upi_intent'] });
      await expectError(await confirm(payment.payment_id, { payment_method_data: UPI('success@upi') }), 'ERR_4004');
    });

    test('payment_method disagreeing with payment_method_data: ERR_2003', async () => {
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id, { payment_method: 'crypto', payment_method_data: UPI('success@upi') }), 'ERR_2003', 'payment_method');
    });
  });

  describe(`[${engine}] client_secret rules`, () => {
    test('publishable key without client_secret: confirm refused (ERR_2001), the payment untouched, no client_secret returned', async () => {
      const payment = await createPayment();
      const byHeader = { key: h.publishableKey };
      const byBearer = { key: null, headers: { authorization: `Bearer ${h.publishableKey}` } };
      for (const auth of [byHeader, byBearer]) {
        const response = await request('POST', `/payments/${payment.payment_id}/confirm`, {
          ...auth,
          body: { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: UPI('failure@upi') },
        });
        const text = await response.clone().text();
        await expectError(response, 'ERR_2001', 'client_secret');
        expect(text).not.toContain(payment.client_secret);
      }
      const stored = (await (await request('GET', `/payments/${payment.payment_id}`)).json()) as PaymentResponse;
      expect(stored.status).toBe('requires_payment_method');
      expect(stored.payment_method_data ?? null).toBeNull();
    });

    test('publishable key with its client_secret: confirm succeeds (spec confirm rule 1)', async () => {
      const payment = await createPayment();
      const response = await confirm(payment.payment_id, { client_secret: payment.client_secret, payment_method_data: UPI('success@upi') }, h.publishableKey);
      expect(response.status).toBe(200);
    });

    test('publishable key: a wrong client_secret is refused (ERR_1005)', async () => {
      const payment = await createPayment();
      const other = await createPayment();
      await expectError(
        await confirm(payment.payment_id, { client_secret: other.client_secret, payment_method_data: UPI('success@upi') }, h.publishableKey),
        'ERR_1005',
        'client_secret',
      );
    });

    test('publishable key: an expired client_secret is refused (ERR_1006)', async () => {
      const payment = await createPayment({ session_expiry: 60 });
      h.clock.advance(60_000);
      await expectError(
        await confirm(payment.payment_id, { client_secret: payment.client_secret, payment_method_data: UPI('success@upi') }, h.publishableKey),
        'ERR_1006',
      );
    });

    test('secret key with client_secret: 422 ERR_1007 (spec confirm rule 2)', async () => {
      const payment = await createPayment();
      await expectError(await confirm(payment.payment_id, { client_secret: payment.client_secret, payment_method_data: UPI('success@upi') }), 'ERR_1007', 'client_secret');
    });

    test('retrieve: secret key, or publishable key with its client_secret only', async () => {
      const payment = await createPayment();
      const other = await createPayment();
      expect((await request('GET', `/payments/${payment.payment_id}`)).status).toBe(200);
      const withSecret = await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, { key: h.publishableKey });
      expect(withSecret.status).toBe(200);
      expect(((await withSecret.json()) as PaymentResponse).payment_id).toBe(payment.payment_id);
      await expectError(await request('GET', `/payments/${payment.payment_id}`, { key: h.publishableKey }), 'ERR_2001', 'client_secret');
      await expectError(await request('GET', `/payments/${payment.payment_id}?client_secret=${other.client_secret}`, { key: h.publishableKey }), 'ERR_1005');
      await expectError(await request('GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`), 'ERR_1007');
    });

    test('retrieve an unknown payment: 404 ERR_4001', async () => {
      await expectError(await request('GET', '/payments/pay_doesnotexist000000'), 'ERR_4001');
    });
  });

  describe(`[${engine}] account payment methods`, () => {
    test('publishable key + client_secret of an INR payment lists UPI collect, intent and QR', async () => {
      const payment = await createPayment({ return_url: 'https://shop.example.com/r' });
      const response = await request('GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        currency: 'INR',
        redirect_url: 'https://shop.example.com/r',
        merchant_name: 'Rail Demo Merchant',
        payment_methods: [
          {
            payment_method: 'upi',
            payment_method_types: [{ payment_method_type: 'upi_collect' }, { payment_method_type: 'upi_intent' }, { payment_method_type: 'upi_qr' }],
          },
        ],
      });
    });

    test('a currency no simulated rail takes lists nothing', async () => {
      const payment = await createPayment({ currency: 'JPY' });
      const response = await request('GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey });
      expect(((await response.json()) as Json)['payment_methods']).toEqual([]);
    });

    test('publishable key without client_secret: ERR_2001', async () => {
      await expectError(await request('GET', '/account/payment_methods', { key: h.publishableKey }), 'ERR_2001', 'client_secret');
    });

    test('a client_secret of no payment: ERR_1005', async () => {
      await expectError(
        await request('GET', `/account/payment_methods?client_secret=pay_nope_secret_${'a'.repeat(20)}`, { key: h.publishableKey }),
        'ERR_1005',
      );
    });
  });

  describe(`[${engine}] demo merchant backend`, () => {
    test('POST /demo/payments creates a test INR 10000 payment (on the demo account) and returns its client_secret', async () => {
      const response = await h.app.request('/demo/payments', { method: 'POST' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { payment_id: string; client_secret: string };
      expect(body.client_secret).toMatch(/^pay_[A-Za-z0-9]{20}_secret_[A-Za-z0-9]{20}$/);
      const demoSecretKey = demoKey(h.secretKey, 'full');
      const payment = (await (await h.app.request(`/payments/${body.payment_id}`, { headers: { 'api-key': demoSecretKey } })).json()) as PaymentResponse;
      expect(payment).toMatchObject({ amount: 10_000, currency: 'INR', status: 'requires_payment_method' });
    });

    test('GET /demo without a demo page: 503 ERR_5007', async () => {
      await expectError(await h.app.request('/demo'), 'ERR_5007');
    });
  });

  describe(`[${engine}] concurrency`, () => {
    test('50 concurrent confirms of one payment: exactly one succeeds, the rest get ERR_4003', async () => {
      const payment = await createPayment({ payment_method_data: UPI('success@upi') });
      const responses = await Promise.all(Array.from({ length: 50 }, () => confirm(payment.payment_id)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(49);
      const errors = await Promise.all(responses.filter((r) => r.status === 400).map((r) => r.json() as Promise<{ error: { code: string } }>));
      expect(new Set(errors.map((e) => e.error.code))).toEqual(new Set(['ERR_4003']));
      const events = await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, payment.payment_id);
      expect(events.map((e) => e.eventType)).toEqual(['payment_succeeded']);
    });
  });
});
