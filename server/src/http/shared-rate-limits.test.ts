/**
 * The limits that guard secrets (sign-in, two-factor codes, failed authentications) are met across instances: two
 * apps, each with its own stores, key look-ups and rate limiters (as two processes behind a load balancer), on one
 * PostgreSQL database, every request split across both, one after the other and all at once. The other surfaces stay
 * per instance, and the payment path writes nothing to the shared buckets.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { totpCode, totpStep } from '../core/auth/totp';
import { apiRequest, expectApiErrorResponse } from '../test-support/api-assertions';
import { postgresReachable, createHarness, createSecondInstance, type Harness } from '../test-support/harness';
import { until } from '../test-support/until';
import { RATE_LIMITED_SURFACES, type RateLimits } from './rate-limit';

const postgres = await postgresReachable();

/** Every surface unlimited but those given. */
const onlyLimits = (given: Partial<RateLimits>): RateLimits =>
  Object.assign(Object.fromEntries(RATE_LIMITED_SURFACES.map((surface) => [surface, { perAddress: null, perKey: null }])), given) as RateLimits;

const LIMITS = onlyLimits({
  operator_login: { perAddress: { limit: 4, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 900 } },
  operator_login_email: { perAddress: null, perKey: { limit: 5, windowSeconds: 900 } },
  operator_verify: { perAddress: { limit: 10, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 300 } },
  failed_authentication: { perAddress: { limit: 3, windowSeconds: 60 }, perKey: null },
  confirm: { perAddress: { limit: 2, windowSeconds: 60 }, perKey: null },
});

type Instance = Pick<Harness, 'app' | 'secretKey'>;

describe.skipIf(!postgres)('rate limits shared by two instances on one PostgreSQL', () => {
  let a: Harness;
  let b: Awaited<ReturnType<typeof createSecondInstance>>;
  /** Request i goes to a (even) or b (odd). */
  const either = (i: number): Instance => (i % 2 === 0 ? a : b);
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const madeUpSecretKey = 'rail_full_test_madeUpKeyThatWasNeverIssued0000000';

  beforeAll(async () => {
    const vaultKey = randomBytes(32);
    const options = { rateLimits: { limits: LIMITS, trustedProxyHops: 1 }, vaultKey };
    a = await createHarness('postgres', options);
    b = await createSecondInstance(a, options);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('failed authentications, one after the other across both: the limit in all, and each instance refuses once it knows', async () => {
    const list = (instance: Instance, address: string, key = madeUpSecretKey) => apiRequest(instance, 'GET', '/payments/list', { key, headers: from(address) });
    for (let i = 0; i < 3; i++) await expectApiErrorResponse(await list(either(i), '198.51.100.1'), 'ERR_1002');
    // b counted one of the three: it learns at its next failure that a's emptied the bucket, and answers 429.
    const learnt = await list(b, '198.51.100.1');
    await expectApiErrorResponse(learnt, 'ERR_4290');
    expect(learnt.headers.get('retry-after')).toBe('60');
    // From then on both refuse before any look-up; the merchant's own key, kept in memory, still passes.
    const lookUps = [vi.spyOn(a.store.apiKeys, 'findApiKeyByHash'), vi.spyOn(b.store.apiKeys, 'findApiKeyByHash')];
    for (const instance of [a, b]) await expectApiErrorResponse(await list(instance, '198.51.100.1'), 'ERR_4290');
    for (const lookUp of lookUps) expect(lookUp).not.toHaveBeenCalled();
    for (const lookUp of lookUps) lookUp.mockRestore();
    // The merchant's key, kept in memory, still passes: used from another address (which keeps it), until it does
    // (what is kept is dropped at a write to the keys' tables, such as the second instance's bootstrap, and while
    // the listening connection's heartbeat is late, as on a loaded machine).
    for (const instance of [a, b]) {
      await until(async () => {
        expect((await list(instance, '198.51.100.99', a.secretKey)).status).toBe(200);
        return (await list(instance, '198.51.100.1', a.secretKey)).status === 200;
      }, 'the merchant key passes the exhausted address');
    }
    // Another address is untouched.
    await expectApiErrorResponse(await list(b, '198.51.100.2'), 'ERR_1002');
  });

  test('failed authentications all at once across both: exactly the limit answered 401, the rest 429', async () => {
    a.clock.advance(3_600_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => apiRequest(either(i), 'GET', '/payments/list', { key: madeUpSecretKey, headers: from('198.51.100.3') })),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
  });

  const operator = () => a.boot.createdOperator!;
  const signIn = (instance: Instance, address: string, password: string, email = operator().email) =>
    apiRequest(instance, 'POST', '/v1/sessions', { key: null, headers: from(address), body: { email, password } });

  test('sign-in per address, per e-mail and address, and per e-mail over every address: each met across both, one after the other and all at once', async () => {
    a.clock.advance(3_600_000);
    // Per e-mail and address (3 per 15 minutes): wrong passwords split across both.
    for (let i = 0; i < 3; i++) expect((await signIn(either(i), '203.0.113.1', 'a wrong password')).status).not.toBe(429);
    await expectApiErrorResponse(await signIn(b, '203.0.113.1', 'a wrong password'), 'ERR_4290');
    // Per address (4 a minute), another e-mail each time so that the per-e-mail buckets do not run out first.
    a.clock.advance(3_600_000);
    for (let i = 0; i < 4; i++) expect((await signIn(either(i), '203.0.113.2', 'a wrong password', `nobody${i}@example.com`)).status).not.toBe(429);
    await expectApiErrorResponse(await signIn(a, '203.0.113.2', 'a wrong password', 'nobody9@example.com'), 'ERR_4290');
    // Per e-mail over every address (5 per 15 minutes), from a new address each time.
    a.clock.advance(3_600_000);
    for (let i = 0; i < 5; i++) expect((await signIn(either(i), `203.0.113.${10 + i}`, 'a wrong password')).status).not.toBe(429);
    await expectApiErrorResponse(await signIn(b, '203.0.113.20', 'a wrong password'), 'ERR_4290');
    // All at once from one address: exactly 3 get past every bucket.
    a.clock.advance(3_600_000);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(either(i), '203.0.113.30', 'a wrong password')));
    expect(results.filter((result) => result.status !== 429)).toHaveLength(3);
  });

  test('two-factor codes per operator: met across both, one after the other and all at once', async () => {
    a.clock.advance(3_600_000);
    const signedIn = await signIn(a, '203.0.113.40', operator().password);
    expect(signedIn.status).toBe(200);
    const { session_token: token } = (await signedIn.json()) as { session_token: string };
    const right = totpCode(operator().totpSecret, totpStep(a.clock.now()));
    const wrong = right === '000000' ? '111111' : '000000';
    const verify = (instance: Instance, address: string) =>
      apiRequest(instance, 'POST', '/v1/sessions/verify', { key: null, headers: { ...from(address), authorization: `Bearer ${token}` }, body: { code: wrong } });
    for (let i = 0; i < 3; i++) expect((await verify(either(i), `203.0.113.${50 + i}`)).status).not.toBe(429);
    await expectApiErrorResponse(await verify(b, '203.0.113.60'), 'ERR_4290');
    a.clock.advance(3_600_000);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => verify(either(i), `203.0.113.${70 + i}`)));
    expect(results.filter((result) => result.status !== 429)).toHaveLength(3);
  });

  test('the other surfaces stay per instance, and successful key authentications and confirms write no shared bucket', async () => {
    a.clock.advance(3_600_000);
    const before = await a.db.selectFrom('rate_limit_buckets').select(a.db.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow();
    const takes = [vi.spyOn(a.store.rateLimitBuckets, 'takeToken'), vi.spyOn(b.store.rateLimitBuckets, 'takeToken')];
    const created = (await (await apiRequest(a, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } })).json()) as { payment_id: string };
    const confirm = (instance: Instance) =>
      apiRequest(instance, 'POST', `/payments/${created.payment_id}/confirm`, { key: a.publishableKey, headers: from('198.51.100.9'), body: { client_secret: 'x' } });
    // confirm: 2 a minute per address, on each instance.
    for (const instance of [a, a, b, b]) expect((await confirm(instance)).status).toBe(400);
    await expectApiErrorResponse(await confirm(a), 'ERR_4290');
    for (const instance of [a, b]) for (let i = 0; i < 5; i++) expect((await apiRequest(instance, 'GET', '/payments/list', { headers: from('198.51.100.9') })).status).toBe(200);
    for (const take of takes) expect(take).not.toHaveBeenCalled();
    for (const take of takes) take.mockRestore();
    const after = await a.db.selectFrom('rate_limit_buckets').select(a.db.fn.countAll<number>().as('rows')).executeTakeFirstOrThrow();
    expect(Number(after.rows)).toBe(Number(before.rows));
  });
});
