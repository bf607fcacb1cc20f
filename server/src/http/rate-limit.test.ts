import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { deleteFullRateLimitBuckets } from '../core/auth/delete-full-rate-limit-buckets';
import { ManualClock } from '../kernel/clock';
import { apiRequest, expectApiErrorResponse, insertLiveSecretKey } from '../test-support/api-assertions';
import { ALL_RAILS_SETTINGS } from '../test-support/fixtures';
import { createHarness, type Harness } from '../test-support/harness';
import { passesAuthentication, readAuthorizationTable } from '../test-support/authorization-table';
import { DEFAULT_RATE_LIMITS, parseRateLimits, RATE_LIMITED_ROUTES, RATE_LIMITED_SURFACES, RateLimiter, type RateLimits, SharedRateLimiter } from './rate-limit';

/** Every surface unlimited but those given. */
const onlyLimits = (given: Partial<RateLimits>): RateLimits =>
  Object.assign(Object.fromEntries(RATE_LIMITED_SURFACES.map((surface) => [surface, { perAddress: null, perKey: null }])), given) as RateLimits;

describe('RateLimiter (token bucket on an injected clock)', () => {
  test('a burst of `limit`, then refused with the seconds until a token is back; refills over the window', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock);
    const rule = { limit: 3, windowSeconds: 60 };
    expect([limiter.take('a', rule), limiter.take('a', rule), limiter.take('a', rule)]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take('a', rule)).toBe(20);
    expect(limiter.take('b', rule)).toBeUndefined();
    clock.advance(19_000);
    expect(limiter.take('a', rule)).toBe(1);
    clock.advance(1_000);
    expect(limiter.take('a', rule)).toBeUndefined();
    expect(limiter.take('a', rule)).toBe(20);
  });

  test('the map stays bounded: full buckets are forgotten first', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 4);
    const rule = { limit: 1, windowSeconds: 1 };
    for (const name of ['a', 'b', 'c', 'd']) expect(limiter.take(name, rule)).toBeUndefined();
    clock.advance(1_000);
    for (const name of ['e', 'f', 'g', 'h', 'i', 'j']) expect(limiter.take(name, rule)).toBeUndefined();
    expect(limiter.take('j', rule)).toBe(1);
  });

  test("a prune judges each bucket by its own rule, not by the rule of the take that made it prune", () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 2);
    const slow = { limit: 2, windowSeconds: 60 };
    const fast = { limit: 1, windowSeconds: 1 };
    // Emptied, and a second later still 29 s from a token of its own: by the fast rule it would be full.
    expect([limiter.take('slow', slow), limiter.take('slow', slow)]).toEqual([undefined, undefined]);
    expect(limiter.take('fast a', fast)).toBeUndefined();
    clock.advance(1_000);
    expect(limiter.take('fast b', fast)).toBeUndefined();
    expect(limiter.take('slow', slow)).toBe(29);
  });

  test('a prune drops the buckets full by their own rule, so the busy ones of another rule are kept', () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(clock, 2);
    const big = { limit: 100, windowSeconds: 6_000 };
    const small = { limit: 1, windowSeconds: 1 };
    for (let i = 0; i < 100; i += 1) expect(limiter.take('busy', big)).toBeUndefined();
    expect(limiter.take('small', small)).toBeUndefined();
    clock.advance(1_000);
    // 'small' is full again and goes; judged by the big rule it would stay, and the oldest half ('busy') would go.
    expect(limiter.take('new', big)).toBeUndefined();
    expect(limiter.take('busy', big)).toBe(59);
  });
});

describe('SharedRateLimiter (token buckets in the store, on an injected clock)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => h?.close());

  test('a burst of `limit`, then refused with the seconds until a token is back, from memory: no round trip until then', async () => {
    const limiter = new SharedRateLimiter(h.store.rateLimitBuckets, h.clock);
    const takes = vi.spyOn(h.store.rateLimitBuckets, 'takeToken');
    const rule = { limit: 3, windowSeconds: 60 };
    for (let i = 0; i < 3; i++) expect(await limiter.take('burst address', '192.0.2.1', rule)).toBeUndefined();
    expect(await limiter.take('burst address', '192.0.2.1', rule)).toBe(20);
    expect(limiter.wait('burst address 192.0.2.1')).toBe(20);
    expect(await limiter.take('burst address', '192.0.2.2', rule)).toBeUndefined();
    expect(takes).toHaveBeenCalledTimes(4);
    h.clock.advance(19_000);
    expect(await limiter.take('burst address', '192.0.2.1', rule)).toBe(1);
    h.clock.advance(1_000);
    expect(await limiter.take('burst address', '192.0.2.1', rule)).toBeUndefined();
    expect(await limiter.take('burst address', '192.0.2.1', rule)).toBe(20);
    expect(takes).toHaveBeenCalledTimes(5);
    takes.mockRestore();
  });

  test('a bucket another instance emptied: refused at the next take, then remembered for an interval, or a whole window when asked', async () => {
    h.clock.advance(3_600_000);
    const [a, b] = [new SharedRateLimiter(h.store.rateLimitBuckets, h.clock), new SharedRateLimiter(h.store.rateLimitBuckets, h.clock)];
    const rule = { limit: 2, windowSeconds: 60 };
    expect(await a.take('other address', '192.0.2.3', rule)).toBeUndefined();
    expect(await a.take('other address', '192.0.2.3', rule)).toBeUndefined();
    expect(b.wait('other address 192.0.2.3')).toBeUndefined();
    expect(await b.take('other address', '192.0.2.3', rule)).toBe(30);
    expect(b.wait('other address 192.0.2.3')).toBe(30);
    expect(await a.take('other address', '192.0.2.4', rule)).toBeUndefined();
    expect(await a.take('other address', '192.0.2.4', rule)).toBeUndefined();
    expect(await b.take('other address', '192.0.2.4', rule, 'window')).toBe(60);
  });

  test('mayRefuse: false while no bucket is known empty, and once the last known one has a token again, when all are forgotten', async () => {
    h.clock.advance(3_600_000);
    const limiter = new SharedRateLimiter(h.store.rateLimitBuckets, h.clock);
    const rule = { limit: 1, windowSeconds: 60 };
    expect(limiter.mayRefuse()).toBe(false);
    await limiter.take('may address', 'a', rule);
    h.clock.advance(30_000);
    await limiter.take('may address', 'b', rule);
    h.clock.advance(59_999);
    expect(limiter.mayRefuse()).toBe(true);
    expect(limiter.wait('may address b')).toBe(1);
    h.clock.advance(1);
    expect(limiter.mayRefuse()).toBe(false);
    expect(limiter.wait('may address b')).toBeUndefined();
    expect(await limiter.take('may address', 'b', rule)).toBeUndefined();
  });

  test('the buckets remembered empty stay bounded: past the bound, those with a token again go first, then the oldest half', async () => {
    h.clock.advance(3_600_000);
    const limiter = new SharedRateLimiter(h.store.rateLimitBuckets, h.clock, 2);
    const rule = { limit: 1, windowSeconds: 60 };
    await limiter.take('bound address', 'a', rule);
    h.clock.advance(60_000);
    await limiter.take('bound address', 'b', rule);
    await limiter.take('bound address', 'c', rule);
    expect([limiter.wait('bound address a'), limiter.wait('bound address b'), limiter.wait('bound address c')]).toEqual([undefined, 60, 60]);
    await limiter.take('bound address', 'd', rule);
    expect([limiter.wait('bound address b'), limiter.wait('bound address c'), limiter.wait('bound address d')]).toEqual([undefined, 60, 60]);
    // b is forgotten here, not in the store: its next take is still refused there.
    expect(await limiter.take('bound address', 'b', rule)).toBe(60);
  });

  test('the housekeeping sweep deletes the buckets full again: an address-spraying client leaves rows for a window at most', async () => {
    h.clock.advance(3_600_000);
    const limiter = new SharedRateLimiter(h.store.rateLimitBuckets, h.clock);
    for (let i = 0; i < 200; i++) await limiter.take('spray address', `10.9.${Math.floor(i / 100)}.${i % 100}`, { limit: 30, windowSeconds: 60 });
    const sprayed = () => h.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', 'spray address %').execute();
    expect(await sprayed()).toHaveLength(200);
    h.clock.advance(1_999);
    await deleteFullRateLimitBuckets(h.core);
    expect(await sprayed()).toHaveLength(200);
    h.clock.advance(1);
    await deleteFullRateLimitBuckets(h.core);
    expect(await sprayed()).toHaveLength(0);
  });

  test('the row names the surface and scope and a hash of the subject: no e-mail or address in the table', async () => {
    const limiter = new SharedRateLimiter(h.store.rateLimitBuckets, h.clock);
    await limiter.take('operator_login_email subject', 'ops@example.com', { limit: 5, windowSeconds: 60 });
    const rows = await h.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', 'operator_login_email subject %').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.bucket).not.toContain('ops@');
  });
});

describe('RAIL_RATE_LIMITS', () => {
  test('unset: the defaults; off: none; entries override one limit each', () => {
    expect(parseRateLimits(undefined)).toEqual(DEFAULT_RATE_LIMITS);
    expect(parseRateLimits('off')).toBeNull();
    const parsed = parseRateLimits('confirm.per_address=5/10, demo_payments.per_address=off') as RateLimits;
    expect(parsed.confirm).toEqual({ perAddress: { limit: 5, windowSeconds: 10 }, perKey: DEFAULT_RATE_LIMITS.confirm.perKey });
    expect(parsed.demo_payments.perAddress).toBeNull();
    expect(DEFAULT_RATE_LIMITS.demo_payments.perAddress).not.toBeNull();
    expect((parseRateLimits('failed_authentication.per_address=5/10') as RateLimits).failed_authentication.perAddress).toEqual({ limit: 5, windowSeconds: 10 });
    expect((parseRateLimits('failed_authentication.per_address=off') as RateLimits).failed_authentication.perAddress).toBeNull();
  });

  test('a bad entry is an error naming it', () => {
    expect(parseRateLimits('confirm=5/10')).toEqual({ error: expect.stringContaining('"confirm=5/10"') });
    expect(parseRateLimits('nothing.per_key=5/10')).toEqual({ error: expect.stringContaining('nothing.per_key') });
    expect(parseRateLimits('confirm.per_key=0/10')).toEqual({ error: expect.stringContaining('at least 1') });
    expect(parseRateLimits('failed_authentication.per_key=5/10')).toEqual({ error: expect.stringContaining('per_address only') });
    expect(parseRateLimits('operator_login_email.per_address=5/10')).toEqual({ error: expect.stringContaining('per_key only') });
  });
});

describe('rate limits on the browser and public surfaces', () => {
  let h: Harness;
  const limits: RateLimits = {
    demo_payments: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
    vault_tokens: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
    confirm: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } },
    client_reads: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
    client_updates: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
    simulator: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
    operator_login: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } },
    operator_login_email: { perAddress: null, perKey: { limit: 3, windowSeconds: 60 } },
    operator_verify: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } },
    failed_authentication: { perAddress: null, perKey: null },
  };

  beforeAll(async () => {
    h = await createHarness('sqlite', { rateLimits: { limits, trustedProxyHops: 1 } });
  });
  afterAll(async () => h?.close());

  const from = (address: string) => ({ 'x-forwarded-for': `203.0.113.9, ${address}` });
  const newPayment = async () => (await (await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } })).json()) as { payment_id: string; client_secret: string };
  const successfulUpi = { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };

  async function expectLimited(response: Response, seconds: number): Promise<void> {
    const { error } = await expectApiErrorResponse(response, 'ERR_4290');
    expect(response.headers.get('retry-after')).toBe(String(seconds));
    expect(error['message']).toContain(`${seconds} seconds`);
  }

  test('per source address: the third confirm from one address is 429 with Retry-After; another address and, later, the same one go through', async () => {
    const payment = await newPayment();
    const confirm = (address: string) =>
      apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, { key: h.publishableKey, headers: from(address), body: { client_secret: 'x' } });
    expect((await confirm('198.51.100.1')).status).toBe(400);
    expect((await confirm('198.51.100.1')).status).toBe(400);
    await expectLimited(await confirm('198.51.100.1'), 30);
    expect((await confirm('198.51.100.2')).status).toBe(400);
    h.clock.advance(30_000);
    expect((await confirm('198.51.100.1')).status).toBe(400);
  });

  test('per publishable key: across addresses the key runs out too', async () => {
    h.clock.advance(3_600_000);
    const confirm = async (address: string) => {
      const payment = await newPayment();
      return apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, {
        key: h.publishableKey,
        headers: from(address),
        body: { client_secret: payment.client_secret, ...successfulUpi },
      });
    };
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) expect((await confirm(address)).status).toBe(200);
    await expectLimited(await confirm('192.0.2.4'), 20);
  });

  test("a stranger holding the publishable key cannot spend its bucket: refused requests take only their address's tokens", async () => {
    h.clock.advance(3_600_000);
    const payment = await newPayment();
    // Ten addresses, each to its own limit, with a made-up client_secret: more than the key's 3, none of them counted.
    for (let index = 0; index < 10; index += 1) {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const refused = await apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, {
          key: h.publishableKey,
          headers: from(`192.0.2.${100 + index}`),
          body: { client_secret: `${payment.payment_id}_secret_${'x'.repeat(20)}` },
        });
        await expectApiErrorResponse(refused, 'ERR_1005');
      }
    }
    const customer = await apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, {
      key: h.publishableKey,
      headers: from('192.0.2.120'),
      body: { client_secret: payment.client_secret, ...successfulUpi },
    });
    expect(customer.status).toBe(200);
  });

  test('an empty key bucket refuses a request before it runs: the confirm it refused changed nothing', async () => {
    h.clock.advance(3_600_000);
    for (const address of ['192.0.2.31', '192.0.2.32', '192.0.2.33']) {
      const payment = await newPayment();
      const body = { client_secret: payment.client_secret, ...successfulUpi };
      expect((await apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, { key: h.publishableKey, headers: from(address), body })).status).toBe(200);
    }
    const payment = await newPayment();
    const body = { client_secret: payment.client_secret, ...successfulUpi };
    await expectLimited(await apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, { key: h.publishableKey, headers: from('192.0.2.34'), body }), 20);
    const stored = (await (await apiRequest(h, 'GET', `/payments/${payment.payment_id}`)).json()) as { status: string };
    expect(stored.status).toBe('requires_payment_method');
  });

  test('a secret key is the merchant server: never limited here', async () => {
    for (let i = 0; i < 5; i++) {
      const payment = await newPayment();
      const response = await apiRequest(h, 'POST', `/payments/${payment.payment_id}/confirm`, {
        headers: from('198.51.100.77'),
        body: { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } },
      });
      expect(response.status).toBe(200);
    }
  });

  test('a header shaped like a secret key does not lift the limits of the surfaces whose routes take no key', async () => {
    h.clock.advance(3_600_000);
    // One made-up key per route: a surface's per-key bucket counts the key as sent, whichever route it came to.
    const madeUp = (index: number) => ({ 'api-key': `rail_full_test_madeUpKeyThatNothingChecks${String(index).padStart(10, '0')}` });
    const surfaces: [string, string, Record<string, unknown> | undefined][] = [
      ['POST', '/demo/payments', {}],
      ['POST', '/v1/sessions', { email: 'nobody@example.com', password: 'wrong password' }],
      ['POST', '/v1/operators/invitations/accept', { token: 'inv_unknown', password: 'a long enough password' }],
      ['GET', '/simulator/upi/pay_unknown', undefined],
    ];
    for (const [index, [method, path, body]] of surfaces.entries()) {
      const send = () => apiRequest(h, method, path, { key: null, headers: { ...from(`198.51.100.${150 + index}`), ...madeUp(index) }, ...(body ? { body } : {}) });
      expect((await send()).status, path).not.toBe(429);
      expect((await send()).status, path).not.toBe(429);
      await expectLimited(await send(), 30);
    }
    // Where the routes authenticate a key, a made-up secret key skips the limit and its authentication refuses it.
    const refused = await apiRequest(h, 'POST', '/payments/pay_unknown/confirm', { key: null, headers: { ...from('198.51.100.160'), ...madeUp(10) }, body: {} });
    await expectApiErrorResponse(refused, 'ERR_1002');
  });

  test('every surface is limited: demo payments, vault tokens, retrieve, poll, payment methods, update, eligibility, the card operations, simulator pages', async () => {
    h.clock.advance(3_600_000);
    const payment = await newPayment();
    const surfaces: [string, string, Record<string, unknown> | undefined, Record<string, string>?][] = [
      ['POST', '/demo/payments', {}],
      ['POST', '/vault/tokens', { client_secret: payment.client_secret }, { origin: 'http://127.0.0.1:8081' }],
      ['GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, undefined],
      ['GET', `/poll/status/poll_${payment.payment_id}?client_secret=${payment.client_secret}`, undefined],
      ['GET', `/account/payment_methods?client_secret=${payment.client_secret}`, undefined],
      ['POST', `/payments/${payment.payment_id}`, { client_secret: payment.client_secret }],
      ['POST', `/payments/${payment.payment_id}/eligibility`, { client_secret: payment.client_secret }],
      ['POST', '/payments/session_tokens', { payment_id: payment.payment_id, client_secret: payment.client_secret, wallets: [] }],
      ['POST', `/payments/${payment.payment_id}/3ds/authentication`, { client_secret: payment.client_secret }],
      ['POST', `/payments/${payment.payment_id}/post_session_tokens`, { client_secret: payment.client_secret }],
      ['POST', `/payments/${payment.payment_id}/complete_authorize`, { client_secret: payment.client_secret }],
      ['GET', `/simulator/upi/${payment.payment_id}`, undefined],
    ];
    // One address per route: routes of one surface (retrieve, poll, payment methods) share its bucket.
    for (const [index, [method, path, body, headers]] of surfaces.entries()) {
      const address = `198.51.100.${200 + index}`;
      const send = () => apiRequest(h, method, path, { key: h.publishableKey, headers: { ...from(address), ...headers }, ...(body ? { body } : {}) });
      expect((await send()).status, path).not.toBe(429);
      expect((await send()).status, path).not.toBe(429);
      await expectLimited(await send(), 30);
    }
  });
});

describe('the per-key limit of a browser GET that carries its publishable key in the URL', () => {
  let h: Harness;
  const perKey = { limit: 2, windowSeconds: 60 };

  beforeAll(async () => {
    h = await createHarness('sqlite', {
      rateLimits: {
        limits: onlyLimits({ client_reads: { perAddress: null, perKey } }),
        trustedProxyHops: 1,
      },
    });
  });
  afterAll(async () => h?.close());

  test('counts ?key= as the api-key header: across addresses the key runs out, whichever way it came', async () => {
    const payment = (await (await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } })).json()) as { client_secret: string };
    const path = `/account/payment_methods?client_secret=${payment.client_secret}`;
    const inUrl = (address: string) => apiRequest(h, 'GET', `${path}&key=${h.publishableKey}`, { key: null, headers: { 'x-forwarded-for': address } });
    expect((await inUrl('192.0.2.11')).status).toBe(200);
    expect((await apiRequest(h, 'GET', path, { key: h.publishableKey, headers: { 'x-forwarded-for': '192.0.2.12' } })).status).toBe(200);
    const { error } = await expectApiErrorResponse(await inUrl('192.0.2.13'), 'ERR_4290');
    expect(error['message']).toContain('seconds');
  });
});


describe("a publishable key's bucket: what takes from it", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness('sqlite', {
      rateLimits: {
        limits: onlyLimits({
          client_reads: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } },
          client_updates: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } },
        }),
        trustedProxyHops: 1,
      },
      // The simulated billing processor answers the catalogue.
      settings: { ...ALL_RAILS_SETTINGS, billingProcessor: 'simulator' },
    });
  });
  afterAll(async () => h?.close());

  const newPayment = async () => (await (await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } })).json()) as { payment_id: string; client_secret: string };
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const read = (payment: { payment_id: string; client_secret: string }, address: string) =>
    apiRequest(h, 'GET', `/payments/${payment.payment_id}?client_secret=${payment.client_secret}`, { key: h.publishableKey, headers: from(address) });

  test('one client_secret read from many addresses takes from the key at the per-address rate at most; its reads still go out', async () => {
    const held = await newPayment();
    for (let index = 0; index < 6; index += 1) expect((await read(held, `198.51.100.${index + 1}`)).status).toBe(200);
    // The held payment took 2 of the key's 3 tokens: one more payment's read, and the key is empty.
    expect((await read(await newPayment(), '198.51.100.11')).status).toBe(200);
    await expectApiErrorResponse(await read(await newPayment(), '198.51.100.12'), 'ERR_4290');
    h.clock.advance(60_000);
  });

  test('the same for a client_secret in a POST body', async () => {
    const eligibility = (payment: { payment_id: string; client_secret: string }, address: string) =>
      apiRequest(h, 'POST', `/payments/${payment.payment_id}/eligibility`, {
        key: h.publishableKey,
        headers: from(address),
        body: { client_secret: payment.client_secret, payment_method_type: 'crypto', payment_method_data: { crypto: {} } },
      });
    const held = await newPayment();
    for (let index = 0; index < 5; index += 1) expect((await eligibility(held, `198.51.100.${index + 41}`)).status).toBe(200);
    expect((await eligibility(await newPayment(), '198.51.100.51')).status).toBe(200);
    await expectApiErrorResponse(await eligibility(await newPayment(), '198.51.100.52'), 'ERR_4290');
    h.clock.advance(60_000);
  });

  test("an answer to a route that checks no client_secret (the catalogue) takes nothing from the key, whatever client_secret it carries", async () => {
    const victim = await newPayment();
    for (let index = 0; index < 6; index += 1) {
      const catalogue = await apiRequest(h, 'GET', `/subscriptions/items?item_type=plan&client_secret=${victim.payment_id}_secret_${'a'.repeat(19)}${index}`, {
        key: h.publishableKey,
        headers: { ...from(`198.51.100.${index + 61}`), 'X-Profile-Id': h.boot.profile.profileId },
      });
      expect(catalogue.status).toBe(200);
    }
    for (let index = 0; index < 2; index += 1) expect((await read(victim, `198.51.100.${index + 71}`)).status).toBe(200);
    expect((await read(await newPayment(), '198.51.100.73')).status).toBe(200);
  });
});

describe('which routes are limited', () => {
  /** Routes open to anyone that answer from memory, reading no store: not limited. */
  const UNLIMITED_PUBLIC_ROUTES = new Set(['GET /health', 'GET /openapi.json', 'GET /v1/scopes', 'GET /demo']);
  /** The credentials a browser or a stranger holds. */
  const BROWSER_CREDENTIALS = ['no key', 'publishable key', 'publishable key + client_secret', 'ephemeral key'] as const;
  const rowsMatching = (method: string, path: string) =>
    RATE_LIMITED_ROUTES.filter(
      (row) => (row.method === 'ALL' || row.method === method) && new RegExp(`^${row.path.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`).test(path),
    );

  test('every route a browser or a stranger gets past authentication on (docs/authorization.md) has one rate-limited row', () => {
    const unlimited: string[] = [];
    const countedTwice: string[] = [];
    for (const { route, cells } of readAuthorizationTable().rows) {
      if (UNLIMITED_PUBLIC_ROUTES.has(route) || !BROWSER_CREDENTIALS.some((credential) => passesAuthentication(cells[credential]))) continue;
      const [method, path] = route.split(' ') as [string, string];
      const rows = rowsMatching(method, path.replace(/\{[^}]+\}/g, 'x_1'));
      if (rows.length === 0) unlimited.push(route);
      if (new Set(rows.map((row) => row.surface)).size < rows.length) countedTwice.push(route);
    }
    expect(unlimited).toEqual([]);
    expect(countedTwice).toEqual([]);
  });
});

describe('failed authentications, per source address, on every key- or session-authenticated route', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness('sqlite', {
      rateLimits: {
        limits: onlyLimits({ failed_authentication: { perAddress: { limit: 3, windowSeconds: 60 }, perKey: null } }),
        trustedProxyHops: 1,
      },
    });
  });
  afterAll(async () => h?.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const madeUpSecretKey = 'rail_full_test_madeUpKeyThatWasNeverIssued0000000';

  test('a refused key is still answered 401 when its failure cannot be counted (the store is unreachable), never 5xx', async () => {
    const takes = vi.spyOn(h.store.rateLimitBuckets, 'takeToken').mockRejectedValueOnce(new Error('connection terminated'));
    try {
      const refused = await apiRequest(h, 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.230') });
      await expectApiErrorResponse(refused, 'ERR_1002');
      expect(takes).toHaveBeenCalledTimes(1);
    } finally {
      takes.mockRestore();
    }
  });

  test('once an address failed `limit` times, its keys get 429 with Retry-After before any look-up, until a token is back; a valid key kept in memory still passes', async () => {
    const list = (address: string, key: string) => apiRequest(h, 'GET', '/payments/list', { key, headers: from(address) });
    // A key used before is kept in memory (storage/accounts/key-lookup-cache.ts); one just made is not yet.
    expect((await list('198.51.100.9', h.secretKey)).status).toBe(200);
    const newKey = await insertLiveSecretKey(h, { fill: 'q', keyId: 'key_failedAuthNew' });
    expect((await list('198.51.100.9', h.secretKey)).status).toBe(200);
    const lookUps = vi.spyOn(h.core.store.apiKeys, 'findApiKeyByHash');
    for (let i = 0; i < 3; i++) await expectApiErrorResponse(await list('198.51.100.1', madeUpSecretKey), 'ERR_1002');
    expect(lookUps).toHaveBeenCalledTimes(3);
    const refused = await list('198.51.100.1', madeUpSecretKey);
    await expectApiErrorResponse(refused, 'ERR_4290');
    expect(refused.headers.get('retry-after')).toBe('20');
    await expectApiErrorResponse(await list('198.51.100.1', newKey), 'ERR_4290');
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/customers/cus_1', { key: `epk_${'a'.repeat(40)}`, headers: from('198.51.100.1') }), 'ERR_4290');
    // The merchant's servers behind the same address keep working with the key they use.
    expect((await list('198.51.100.1', h.secretKey)).status).toBe(200);
    expect(lookUps).toHaveBeenCalledTimes(3);
    lookUps.mockRestore();

    expect((await list('198.51.100.2', h.secretKey)).status).toBe(200);
    h.clock.advance(20_000);
    expect((await list('198.51.100.1', h.secretKey)).status).toBe(200);
    await expectApiErrorResponse(await list('198.51.100.1', madeUpSecretKey), 'ERR_1002');
    await expectApiErrorResponse(await list('198.51.100.1', madeUpSecretKey), 'ERR_4290');
  });

  test('failures all at once from one address: exactly the limit answered 401, the rest 429 (they passed the check before the bucket emptied)', async () => {
    h.clock.advance(3_600_000);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => apiRequest(h, 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.6') })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([...Array(3).fill(401), ...Array(9).fill(429)]);
  });

  test('successful authentications take nothing from the bucket, and write nothing', async () => {
    h.clock.advance(3_600_000);
    const takes = vi.spyOn(h.store.rateLimitBuckets, 'takeToken');
    const newKey = await insertLiveSecretKey(h, { fill: 'r', keyId: 'key_failedAuthUnkept' });
    expect((await apiRequest(h, 'GET', '/payments/list', { key: newKey, headers: from('198.51.100.3') })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await apiRequest(h, 'GET', '/payments/list', { headers: from('198.51.100.3') })).status).toBe(200);
    expect(takes).not.toHaveBeenCalled();
    takes.mockRestore();
    for (let i = 0; i < 3; i++) await expectApiErrorResponse(await apiRequest(h, 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.3') }), 'ERR_1002');
  });

  test('every route that refuses an unknown key with ERR_1002 (docs/authorization.md) counts it and then answers 429', async () => {
    h.clock.advance(3_600_000);
    const notLimited: string[] = [];
    let checked = 0;
    for (const [index, { route, cells }] of readAuthorizationTable().rows.entries()) {
      if (cells['unknown key'] !== 'ERR_1002') continue;
      checked++;
      const [method, path] = route.split(' ') as [string, string];
      const address = `10.0.${Math.floor(index / 200)}.${index % 200}`;
      const send = () =>
        apiRequest(h, method, path.replace(/\{[^}]+\}/g, 'x_1'), { key: madeUpSecretKey, headers: { ...from(address), origin: 'http://127.0.0.1:8081' } });
      for (let i = 0; i < 3; i++) await expectApiErrorResponse(await send(), 'ERR_1002');
      if ((await send()).status !== 429) notLimited.push(route);
    }
    expect(notLimited).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  const madeUpSessionToken = `ops_${'m'.repeat(48)}`;

  test('a session token refused with ERR_1008 (bearer or cookie) takes from the same bucket as a refused key; an exhausted address is then refused both, a session too, before any look-up', async () => {
    h.clock.advance(3_600_000);
    const { email, password } = h.boot.createdOperator!;
    const signIn = await apiRequest(h, 'POST', '/v1/sessions', { key: null, headers: from('198.51.100.5'), body: { email, password } });
    const { session_token: validToken } = (await signIn.json()) as { session_token: string };
    const securityEmails = (address: string, headers: Record<string, string>) => apiRequest(h, 'GET', '/v1/security-emails', { key: null, headers: { ...from(address), ...headers } });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    // No token at all looks nothing up: not counted, like a call without a key.
    for (let i = 0; i < 5; i++) await expectApiErrorResponse(await securityEmails('198.51.100.4', {}), 'ERR_1008');
    const lookUps = vi.spyOn(h.core.store.operatorSessions, 'findSessionByTokenHash');
    await expectApiErrorResponse(await securityEmails('198.51.100.4', bearer(madeUpSessionToken)), 'ERR_1008');
    await expectApiErrorResponse(await securityEmails('198.51.100.4', { cookie: `rail_session=${madeUpSessionToken}` }), 'ERR_1008');
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.4') }), 'ERR_1002');
    expect(lookUps).toHaveBeenCalledTimes(2);
    const refused = await securityEmails('198.51.100.4', bearer(madeUpSessionToken));
    await expectApiErrorResponse(refused, 'ERR_4290');
    expect(refused.headers.get('retry-after')).toBe('20');
    await expectApiErrorResponse(await securityEmails('198.51.100.4', bearer(validToken)), 'ERR_4290');
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/card_issuers', { key: null, headers: { ...from('198.51.100.4'), ...bearer(madeUpSessionToken) } }), 'ERR_4290');
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/v1/api-keys', { key: null, headers: { ...from('198.51.100.4'), ...bearer(madeUpSessionToken) } }), 'ERR_4290');
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.4') }), 'ERR_4290');
    expect(lookUps).toHaveBeenCalledTimes(2);
    lookUps.mockRestore();
    // The same session from another address, and from this one once a token is back.
    expect((await securityEmails('198.51.100.5', bearer(validToken))).status).toBe(200);
    h.clock.advance(20_000);
    expect((await securityEmails('198.51.100.4', bearer(validToken))).status).toBe(200);
  });

  test('every route that takes an operator session (docs/authorization.md) counts a refused session token and then answers 429', async () => {
    h.clock.advance(3_600_000);
    const notLimited: string[] = [];
    let checked = 0;
    for (const [index, { route, cells }] of readAuthorizationTable().rows.entries()) {
      if (cells['operator session + step-up'] !== 'allowed' || passesAuthentication(cells['no key'])) continue;
      checked++;
      const [method, path] = route.split(' ') as [string, string];
      const address = `10.1.${Math.floor(index / 200)}.${index % 200}`;
      const send = () =>
        apiRequest(h, method, path.replace(/\{[^}]+\}/g, 'x_1'), { key: null, headers: { ...from(address), authorization: `Bearer ${madeUpSessionToken}` } });
      for (let i = 0; i < 3; i++) await expectApiErrorResponse(await send(), 'ERR_1008');
      if ((await send()).status !== 429) notLimited.push(route);
    }
    expect(notLimited).toEqual([]);
    expect(checked).toBeGreaterThan(15);
  });
});
