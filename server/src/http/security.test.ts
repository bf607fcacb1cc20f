/**
 * What the API says back and logs about what it was sent, and the demo's off switch (docs/security.md). The
 * authorization matrix is authorization.test.ts; rate limits are rate-limit.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { capturedLogger } from '../test-support/captured-logger';
import { apiRequest, expectApiError, insertLiveSecretKey } from '../test-support/api-assertions';
import { createHarness, type Harness } from '../test-support/harness';
import { JSON_MAX_DEPTH } from './middleware/json-body';

const CARD = '4242424242424242';
const CARD_SPACED = '4242 4242 4242 4242';

describe('no caller input that could be card data comes back in a message or a log line', () => {
  let h: Harness;
  const { logger, lines: logged } = capturedLogger();

  beforeAll(async () => {
    h = await createHarness('sqlite', { logger });
  });
  afterAll(async () => h?.close());

  const requests: [string, string, unknown?][] = [
    ['GET', `/payments/${CARD}`],
    ['POST', `/payments/${CARD}`, { description: 'x' }],
    ['POST', `/payments/${CARD}/confirm`, {}],
    ['POST', `/payments/${CARD}/cancel`, { cancellation_reason: 'x' }],
    ['POST', `/payments/${CARD}/capture`, {}],
    ['GET', `/refunds/${CARD}`],
    ['POST', `/refunds/${CARD}`, { reason: 'x' }],
    ['POST', '/refunds', { payment_id: CARD, amount: 100 }],
    ['GET', `/customers/${CARD}`],
    ['DELETE', `/customers/${CARD}`],
    ['GET', `/events/${CARD}`],
    ['GET', `/payments/list?starting_after=${CARD}`],
    ['GET', `/nowhere/${CARD}`],
    ['GET', `/nowhere/${encodeURIComponent(CARD_SPACED)}`],
    ['DELETE', `/payments/${CARD}`],
    ['GET', `/payments/${CARD}?${CARD}=1`],
  ];

  for (const [method, path, body] of requests) {
    test(`${method} ${path}`, async () => {
      const response = await apiRequest(h, method, path, body === undefined ? {} : { body });
      const text = await response.text();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(JSON.parse(text)).toHaveProperty('error.code');
      expect(text).not.toContain(CARD);
      expect(text).not.toContain(CARD_SPACED);
    });
  }

  test('the request log lines carry no card number either', () => {
    const lines = logged.join('');
    expect(lines).toContain('"path":"/nowhere/[redacted]"');
    expect(lines).not.toContain(CARD);
    expect(lines).not.toContain(CARD_SPACED);
    expect(lines).not.toContain(encodeURIComponent(CARD_SPACED));
  });

  test('a long digit run that is not a card number (an order reference) is still quoted as sent', async () => {
    const text = await (await apiRequest(h, 'GET', '/nowhere/4242424242424241')).text();
    expect(text).toContain('4242424242424241');
  });
});

describe('the demo checkout (RAIL_DEMO=auto) is off once its account has a live key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite', { demoOffWhenLiveKeysExist: true });
  });
  afterAll(async () => h?.close());

  test('serves while the account is test-only, then answers 404 on both routes', async () => {
    const created = await apiRequest(h, 'POST', '/demo/payments', { key: null });
    expect(created.status).toBe(200);
    await insertLiveSecretKey(h, { fill: 'L', keyId: 'key_live_demo' });
    await expectApiError(await apiRequest(h, 'POST', '/demo/payments', { key: null }), 'ERR_2006');
    await expectApiError(await apiRequest(h, 'GET', '/demo', { key: null }), 'ERR_2006');
  });
});

describe('JSON nested beyond JSON_MAX_DEPTH is refused before anything recursive runs (ERR_2003, never a 500)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => h?.close());

  const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  const routes = ['/payments', '/payments/pay_x', '/payments/pay_x/confirm', '/payments/pay_x/update_metadata', '/customers', '/customers/cus_x', '/refunds', '/refunds/list', '/ephemeral_keys', '/collect/collections'];

  test.each([2_500, 5_000, 30_000])('%i levels deep in a field of every JSON route', async (levels) => {
    for (const path of routes) {
      const response = await apiRequest(h, 'POST', path, { raw: `{"metadata":${nested(levels)}}` });
      const text = await response.text();
      expect(response.status, `${path}: ${text}`).toBe(400);
      expect(JSON.parse(text), path).toMatchObject({ error: { code: 'ERR_2003', field_name: 'metadata' } });
    }
  });

  test(`${JSON_MAX_DEPTH} levels pass the parser (the schema then judges the field); one more does not`, async () => {
    // The body is level 1, so a field holds JSON_MAX_DEPTH - 1 more levels.
    const atLimit = await apiRequest(h, 'POST', '/customers', { raw: `{"metadata":${nested(JSON_MAX_DEPTH - 1)}}` });
    expect(((await atLimit.json()) as { error?: { message: string } }).error?.message ?? '').not.toContain('nest');
    const over = await apiRequest(h, 'POST', '/customers', { raw: `{"metadata":${nested(JSON_MAX_DEPTH)}}` });
    expect(await over.json()).toMatchObject({ error: { code: 'ERR_2003', field_name: 'metadata', message: expect.stringContaining(`${JSON_MAX_DEPTH} levels`) } });
  });
});
