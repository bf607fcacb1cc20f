/**
 * UPI intent and UPI QR on the UPI simulator: offered in the INR method list, confirm answers
 * requires_customer_action (a `upi://pay` redirect_to_url / a qr_code_information pointing at the simulator
 * approval page), the page's Approve / Decline settle the payment with its outbox event, unanswered requests
 * expire. Runs on SQLite and PostgreSQL (forEachEngine).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../../../../protocol/errors';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import { qrSvgDataUrl } from '../../../rails/simulator/qr-image';
import { UPI_REQUEST_VALIDITY_MS } from '../../../rails/simulator/upi-simulator';
import type { Engine } from '../../../storage/database';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';

type Json = Record<string, unknown>;
const BASE_URL = 'http://127.0.0.1:8080';

forEachEngine('UPI intent and QR API', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine, { settings: ALL_RAILS_SETTINGS });
  });
  afterAll(async () => {
    await h?.close();
  });

  const request = (method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'api-key': options.key ?? h.secretKey };
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    return h.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  };
  const expectError = async (response: Response, code: ErrorCode) => {
    const text = await response.text();
    expect(JSON.parse(text), text).toMatchObject({ error: { code, type: ERROR_CATALOG[code].type } });
    expect(response.status).toBe(ERROR_CATALOG[code].status);
  };
  const createPayment = async (body: Json = {}) => {
    const response = await request('POST', '/payments', { body: { amount: 12_345, currency: 'INR', ...body } });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as PaymentResponse;
  };
  const confirm = async (payment: PaymentResponse, type: 'upi_intent' | 'upi_qr') => {
    const response = await request('POST', `/payments/${payment.payment_id}/confirm`, {
      key: h.publishableKey,
      body: { client_secret: payment.client_secret, payment_method: 'upi', payment_method_type: type, payment_method_data: { upi: { [type]: {} } } },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as PaymentResponse;
  };
  const retrieve = async (paymentId: string) => (await (await request('GET', `/payments/${paymentId}`)).json()) as PaymentResponse;
  const events = async (paymentId: string) =>
    (await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, paymentId)).map((event) => event.eventType);
  /** The simulator approval page of a confirmed intent / QR payment. */
  const pageUrl = (payment: PaymentResponse): string => {
    const next = payment.next_action;
    if (next?.type === 'qr_code_information') return next.qr_code_url ?? '';
    if (next?.type === 'redirect_to_url') return new URL(next.redirect_to_url).searchParams.get('url') ?? '';
    return '';
  };
  const submit = async (url: string, decision: 'complete' | 'fail') => {
    h.clock.advance(1000);
    const target = new URL(url);
    const page = await h.app.request(`${target.pathname}${target.search}`);
    expect(page.status, await page.clone().text()).toBe(200);
    const html = await page.text();
    expect(html).toContain('Approve');
    expect(html).toContain('Decline');
    expect(html).not.toMatch(/<script|<link|src=/i);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(action).toBe(`/simulator/upi/${target.pathname.split('/').pop()}`);
    return h.app.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ account: field('account'), challenge: field('challenge'), decision }).toString(),
    });
  };

  describe(`[${engine}] UPI intent and QR`, () => {
    test('INR offers upi_collect, upi_intent and upi_qr', async () => {
      const payment = await createPayment();
      const response = await request('GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey });
      const body = (await response.json()) as { payment_methods: { payment_method: string; payment_method_types: { payment_method_type: string }[] }[] };
      const upi = body.payment_methods.find((entry) => entry.payment_method === 'upi');
      expect(upi?.payment_method_types.map((entry) => entry.payment_method_type)).toEqual(['upi_collect', 'upi_intent', 'upi_qr']);
    });

    test('intent: a upi://pay redirect_to_url; Approve on the simulator page succeeds with its outbox event', async () => {
      const payment = await createPayment();
      const confirmed = await confirm(payment, 'upi_intent');
      expect(confirmed).toMatchObject({ status: 'requires_customer_action', payment_method: 'upi', payment_method_type: 'upi_intent', next_action: { type: 'redirect_to_url' } });
      const link = confirmed.next_action?.type === 'redirect_to_url' ? confirmed.next_action.redirect_to_url : '';
      expect(link.startsWith('upi://pay?')).toBe(true);
      const params = new URL(link).searchParams;
      expect(params.get('pa')).toBe('rail.simulator@upi');
      expect(params.get('pn')).toBe('Rail Simulator');
      expect(params.get('tr')).toBe(confirmed.reference_id);
      expect(params.get('am')).toBe('123.45');
      expect(params.get('cu')).toBe('INR');
      expect(pageUrl(confirmed).startsWith(`${BASE_URL}/simulator/upi/${payment.payment_id}?`)).toBe(true);

      const done = await submit(pageUrl(confirmed), 'complete');
      expect(done.status).toBe(200);
      expect(await done.text()).toContain('succeeded');
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 12_345, next_action: null });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      // The page is spent: the payment no longer waits.
      const target = new URL(pageUrl(confirmed));
      await expectError(await h.app.request(target.pathname + target.search), 'ERR_4070');
    });

    test('QR: qr_code_information with the simulator page and its QR code as an SVG image; Decline fails the payment', async () => {
      const payment = await createPayment({ return_url: 'https://shop.example/back' });
      const confirmed = await confirm(payment, 'upi_qr');
      expect(confirmed).toMatchObject({
        status: 'requires_customer_action',
        payment_method_type: 'upi_qr',
        next_action: { type: 'qr_code_information', display_to_timestamp: h.clock.now().getTime() + UPI_REQUEST_VALIDITY_MS },
      });
      expect(pageUrl(confirmed).startsWith(`${BASE_URL}/simulator/upi/${payment.payment_id}?`)).toBe(true);
      // The image is the QR code of the page itself (qr-image.test.ts decodes it): scanning it opens the page.
      const image = confirmed.next_action?.type === 'qr_code_information' ? confirmed.next_action.image_data_url : null;
      expect(image?.startsWith('data:image/svg+xml;base64,')).toBe(true);
      expect(image).toBe(qrSvgDataUrl(pageUrl(confirmed)));
      expect((await retrieve(payment.payment_id)).next_action).toEqual(confirmed.next_action);
      const done = await submit(pageUrl(confirmed), 'fail');
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`https://shop.example/back?payment_id=${payment.payment_id}&status=failed`);
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'DC_06' });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_failed']);
    });

    test('QR: Approve succeeds', async () => {
      const payment = await createPayment();
      const confirmed = await confirm(payment, 'upi_qr');
      await submit(pageUrl(confirmed), 'complete');
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'succeeded' });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
    });

    test.each(['upi_intent', 'upi_qr'] as const)('%s: an unanswered request fails on the first read after display_to_timestamp', async (type) => {
      const payment = await createPayment();
      const confirmed = await confirm(payment, type);
      h.clock.advance(UPI_REQUEST_VALIDITY_MS - 1);
      expect((await retrieve(payment.payment_id)).status).toBe('requires_customer_action');
      h.clock.advance(1);
      expect(await retrieve(payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'upi_request_expired' });
      expect(await events(payment.payment_id)).toEqual(['action_required', 'payment_failed']);
      const target = new URL(pageUrl(confirmed));
      await expectError(await h.app.request(target.pathname + target.search), 'ERR_4070');
    });

    test('the page for a payment that does not wait, a wrong challenge or another rail page: ERR_4070', async () => {
      const collect = await createPayment();
      await request('POST', `/payments/${collect.payment_id}/confirm`, { body: { payment_method_data: { upi: { upi_collect: { vpa_id: 'pending@upi' } } } } });
      await expectError(await h.app.request(`/simulator/upi/${collect.payment_id}?account=${h.boot.account.accountId}&challenge=x`), 'ERR_4070');
      const payment = await createPayment();
      const confirmed = await confirm(payment, 'upi_qr');
      const url = new URL(pageUrl(confirmed));
      const wrong = new URL(url);
      wrong.searchParams.set('challenge', 'y'.repeat(24));
      await expectError(await h.app.request(wrong.pathname + wrong.search), 'ERR_4070');
      await expectError(await h.app.request(`/simulator/crypto/${payment.payment_id}${url.search}`), 'ERR_4070');
      await expectError(await h.app.request(`/simulator/upi/pay_unknown${url.search}`), 'ERR_4070');
      // The posted form's fields are not checked like JSON bodies and URLs: a NUL reached PostgreSQL (ERR_5000).
      for (const [name, value] of [['account', `${h.boot.account.accountId}\u0000`], ['challenge', '\u0000'], ['account', 'a'.repeat(300)]] as const) {
        const fields = { account: url.searchParams.get('account') ?? '', challenge: url.searchParams.get('challenge') ?? '', decision: 'complete', [name]: value };
        const posted = await h.app.request(url.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
        await expectError(posted, 'ERR_4070');
      }
      expect((await retrieve(payment.payment_id)).status).toBe('requires_customer_action');
    });
  });
});
