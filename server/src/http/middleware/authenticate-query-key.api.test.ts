import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createLogger } from '../../logger';
import { apiRequest, expectApiError, expectOk } from '../../test-support/api-assertions';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';

type Json = Record<string, unknown>;
type Payment = { payment_id: string; client_secret: string };

/**
 * The publishable key as the `key` query parameter of a browser GET (no custom header, so no CORS preflight):
 * accepted on the GETs that take a publishable key, a header key wins, and a secret key in a URL is refused.
 */
forEachEngine('publishable key in the key query parameter', (engine) => {
  let h: Harness;
  const logLines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    h = await createHarness(engine, { logger: createLogger('info', sink) });
  });
  afterAll(async () => {
    await h?.close();
  });

  const createPayment = async () => expectOk<Payment>(await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } }));
  /** A GET as the frame sends it: no api-key header, the key in the URL. */
  const viaQuery = (path: string, key: string = h.publishableKey, method = 'GET') =>
    apiRequest(h, method, `${path}&key=${encodeURIComponent(key)}`, { key: null });
  const viaHeader = (path: string) => apiRequest(h, 'GET', path, { key: h.publishableKey });

  test('each GET that takes a publishable key answers with ?key= as with the header', async () => {
    const payment = await createPayment();
    const secret = payment.client_secret;
    const paths = [
      `/account/payment_methods?client_secret=${secret}&expand_payment=true`,
      `/payments/${payment.payment_id}?client_secret=${secret}`,
      `/customers/payment_methods?client_secret=${secret}`,
      `/poll/status/poll_${payment.payment_id}?client_secret=${secret}`,
    ];
    for (const path of paths) {
      const expected = await expectOk<Json>(await viaHeader(path));
      expect(await expectOk<Json>(await viaQuery(path)), path).toEqual(expected);
    }
    expect(((await expectOk<Json>(await viaQuery(paths[0]!))).payment as Json).payment_id).toBe(payment.payment_id);
    // /subscriptions/items needs a billing profile this harness has none of: the answer is the same refusal of the
    // operation either way, not an unknown `key` parameter or a missing key.
    const items = '/subscriptions/items?item_type=plan';
    const profile = { 'x-profile-id': h.boot.profile.profileId };
    const byHeader = await expectApiError(await apiRequest(h, 'GET', items, { key: h.publishableKey, headers: profile }), 'ERR_2001', 'billing_processor_id');
    const byQuery = await apiRequest(h, 'GET', `${items}&key=${h.publishableKey}`, { key: null, headers: profile });
    expect(await expectApiError(byQuery, 'ERR_2001', 'billing_processor_id')).toEqual(byHeader);
  });

  test('HEAD takes the query key like GET', async () => {
    const payment = await createPayment();
    const response = await viaQuery(`/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, h.publishableKey, 'HEAD');
    expect(response.status).toBe(200);
  });

  test('a secret key, an ephemeral key or anything but a publishable key in ?key= is refused with 401 (ERR_1002), header or not', async () => {
    const payment = await createPayment();
    const ephemeral = (await expectOk<{ secret: string }>(await apiRequest(h, 'POST', '/ephemeral_keys', { body: { customer_id: (await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'Q' } }))).customer_id } }))).secret;
    const path = `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`;
    for (const key of [h.secretKey, ephemeral, 'not-a-key', '']) {
      const response = await viaQuery(path, key);
      expect(response.status, key).toBe(401);
      const error = await expectApiError(response, 'ERR_1002');
      expect(error.message).toMatch(/secret keys are never accepted in a URL/);
      expect(JSON.stringify(error)).not.toContain(payment.payment_id);
    }
    // Beside a valid header key too: a secret key in a URL has leaked, and the caller must hear it.
    await expectApiError(await apiRequest(h, 'GET', `${path}&key=${h.secretKey}`, { key: h.publishableKey }), 'ERR_1002');
    // Secret-key GET without client_secret, which the secret key alone would be allowed: still refused, nothing read.
    const refused = await apiRequest(h, 'GET', `/account/payment_methods?key=${h.secretKey}`, { key: null });
    expect(refused.status).toBe(401);
    expect(await refused.json()).not.toHaveProperty('payment_methods');
  });

  test('a header key wins over a different query key', async () => {
    const payment = await createPayment();
    const path = `/payments/${payment.payment_id}`;
    const unknownPublishable = `rail_open_test_${'u'.repeat(40)}`;
    // Header publishable, query an unknown publishable key: the unknown key is never looked at.
    expect((await expectOk<Json>(await apiRequest(h, 'GET', `${path}?client_secret=${payment.client_secret}&key=${unknownPublishable}`, { key: h.publishableKey }))).payment_id).toBe(payment.payment_id);
    // Header secret, query publishable: the secret key's rules apply (no client_secret needed; one sent is ERR_1007).
    expect((await expectOk<Json>(await apiRequest(h, 'GET', `${path}?key=${h.publishableKey}`))).payment_id).toBe(payment.payment_id);
    await expectApiError(await apiRequest(h, 'GET', `${path}?client_secret=${payment.client_secret}&key=${h.publishableKey}`), 'ERR_1007', 'client_secret');
    // Without the header the same query key is authenticated: an unknown one is ERR_1002.
    await expectApiError(await viaQuery(`${path}?client_secret=${payment.client_secret}`, unknownPublishable), 'ERR_1002');
  });

  test('routes that take only a secret key refuse key as an unknown parameter, and never read a key from it', async () => {
    const customer = (await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'Q' } }))).customer_id;
    for (const path of ['/payments/list?limit=1', `/customers/${customer}/payment_methods?limit=1`, '/subscriptions/list?limit=1']) {
      await expectApiError(await apiRequest(h, 'GET', `${path}&key=${h.publishableKey}`), 'ERR_2004', 'key');
      await expectApiError(await viaQuery(path), 'ERR_1001');
    }
  });

  test('a POST never takes the query key, even on a route that takes a publishable key', async () => {
    const payment = await createPayment();
    const response = await h.app.request(`/payments/${payment.payment_id}/eligibility?key=${h.publishableKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_secret: payment.client_secret }),
    });
    await expectApiError(response, 'ERR_1001');
  });

  test('a simple GET (no preflight) is answered with Access-Control-Allow-Origin, and the request log holds no query', async () => {
    const payment = await createPayment();
    logLines.length = 0;
    const response = await h.app.request(`/account/payment_methods?client_secret=${payment.client_secret}&expand_payment=true&key=${h.publishableKey}`, {
      headers: { origin: 'https://shop.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const logged = logLines.join('');
    expect(logged).toContain('/account/payment_methods');
    expect(logged).not.toContain(h.publishableKey);
    expect(logged).not.toContain(payment.client_secret);
  });
});
