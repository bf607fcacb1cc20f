/**
 * Key management and operator sessions (docs/keys.md), through app.request() on SQLite and PostgreSQL, with the
 * harness's manual clock for the step-up window, the rotation grace window and the session lifetime.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_KEY_SCOPES, type ApiKeyEntry, type ApiScope, type IssuedApiKey } from '../../../../../protocol/api/keys';
import { hashPassword, hashSecret } from '../../../core/auth/secrets';
import { totpCode, totpStep } from '../../../core/auth/totp';
import { DEFAULT_KEY_POLICY } from '../../../core/shared/deps';
import { issueApiKey } from '../../../core/api-keys/issue-api-key';
import type { Engine } from '../../../storage/database';
import { apiRequest, expectApiError, expectApiErrorResponse, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

forEachEngine('key management and operator sessions', (engine: Engine) => {
  let h: Harness;
  let operator: { email: string; password: string; totpSecret: string };

  beforeAll(async () => {
    h = await createHarness(engine, { keys: { ...DEFAULT_KEY_POLICY, rotationLimit: { limit: 3, windowSeconds: 3600 } } });
    operator = h.boot.createdOperator!;
  });
  afterAll(async () => h?.close());

  const bearer = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });
  const signIn = async (credentials = operator) =>
    expectOk<{ session_token: string; expires_at: string; two_factor_fresh_until: null }>(
      await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email: credentials.email, password: credentials.password } }),
    );
  /** The current code; the clock moves one step first, so no two calls of a test reuse a step. */
  const nextCode = (secret = operator.totpSecret) => {
    h.clock.advance(30_000);
    return totpCode(secret, totpStep(h.clock.now()));
  };
  const verify = async (token: string, code = nextCode()) => apiRequest(h, 'POST', '/v1/sessions/verify', { ...bearer(token), body: { code } });
  /** A session with a fresh two-factor verification. */
  const keyManager = async () => {
    const { session_token } = await signIn();
    await expectOk(await verify(session_token));
    return session_token;
  };
  const createKey = async (token: string, body: Record<string, unknown> = { name: 'server' }) =>
    apiRequest(h, 'POST', '/v1/api-keys', { ...bearer(token), body });
  const listKeys = async () => expectOk<ApiKeyEntry[]>(await apiRequest(h, 'GET', '/v1/api-keys'));
  const createPayment = async (key: string) => apiRequest(h, 'POST', '/payments', { key, body: { amount: 1000, currency: 'INR' } });

  test('GET /v1/scopes needs no key and lists every scope, the spec examples among them', async () => {
    const { scopes } = await expectOk<{ scopes: string[] }>(await apiRequest(h, 'GET', '/v1/scopes', { key: null }));
    expect(scopes).toEqual(expect.arrayContaining(['payments:read', 'payments:write', 'refunds:read', 'routing:write', 'api_keys:manage']));
    expect(DEFAULT_KEY_SCOPES).toHaveLength(19);
    expect(scopes).toEqual(expect.arrayContaining([...DEFAULT_KEY_SCOPES]));
  });

  test('sign-in: a wrong password and an unknown e-mail get the same ERR_1008; the right one a token and an HttpOnly cookie', async () => {
    await expectApiError(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email: operator.email, password: 'wrong' } }), 'ERR_1008');
    await expectApiError(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email: 'nobody@example.com', password: 'wrong' } }), 'ERR_1008');
    const response = await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email: operator.email.toUpperCase(), password: operator.password } });
    const cookie = response.headers.get('set-cookie') ?? '';
    const body = await expectOk<{ session_token: string; expires_at: string; two_factor_fresh_until: string | null }>(response);
    expect(body.session_token).toMatch(/^ops_[A-Za-z0-9]{48}$/);
    expect(body.two_factor_fresh_until).toBeNull();
    expect(new Date(body.expires_at).getTime() - h.clock.now().getTime()).toBe(DEFAULT_KEY_POLICY.sessionTtlMs);
    expect(cookie).toContain(`rail_session=${body.session_token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/v1/);
    // base_url is http://127.0.0.1 in the harness: a Secure cookie would never come back.
    expect(cookie).not.toMatch(/Secure/);
    // Only the token's hash is stored.
    const row = await h.db.selectFrom('operator_sessions').selectAll().where('token_hash', '=', hashSecret(body.session_token)).executeTakeFirst();
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(body.session_token);
  });

  test("the operator's TOTP secret is stored sealed with the vault key, not in base32", async () => {
    const row = await h.db.selectFrom('operators').select('totp_secret').where('email', '=', operator.email).executeTakeFirstOrThrow();
    expect(row.totp_secret).not.toContain(operator.totpSecret);
    expect(row.totp_secret).toMatch(/^v1\./);
  });

  test('key management refuses API keys, sessions without two-factor, and a step-up older than its window (ERR_1019)', async () => {
    await expectApiError(await apiRequest(h, 'POST', '/v1/api-keys', { body: { name: 'x' } }), 'ERR_1019');
    await expectApiError(await apiRequest(h, 'POST', '/v1/api-keys', { key: null, headers: { authorization: `Bearer ${h.secretKey}` }, body: { name: 'x' } }), 'ERR_1019');
    await expectApiError(await apiRequest(h, 'POST', '/v1/api-keys', { key: null, body: { name: 'x' } }), 'ERR_1019');
    const { session_token } = await signIn();
    await expectApiError(await createKey(session_token), 'ERR_1019');
    await expectOk(await verify(session_token));
    await expectOk(await createKey(session_token));
    h.clock.advance(DEFAULT_KEY_POLICY.stepUpWindowMs + 1);
    await expectApiError(await createKey(session_token), 'ERR_1019');
    await expectApiError(await apiRequest(h, 'POST', '/v1/api-keys', { ...bearer(`ops_${'x'.repeat(48)}`), body: { name: 'x' } }), 'ERR_1008');
  });

  test('a TOTP code: a wrong one is ERR_1011, the one of the step before is accepted, and no code works twice', async () => {
    const first = await signIn();
    const second = await signIn();
    await expectApiError(await verify(first.session_token, '000000'.replace(/0/g, '1')), 'ERR_1011', 'code');
    await expectApiError(await verify(first.session_token, 'abc'), 'ERR_2003', 'code');
    h.clock.advance(30_000);
    const previousStep = totpCode(operator.totpSecret, totpStep(h.clock.now()) - 1);
    await expectOk(await verify(first.session_token, previousStep));
    // The same code on another session (a code seen over a shoulder): refused, on every instance (stored claim).
    await expectApiError(await verify(second.session_token, previousStep), 'ERR_1011');
    // Two steps away is outside the window.
    h.clock.advance(30_000);
    await expectApiError(await verify(second.session_token, totpCode(operator.totpSecret, totpStep(h.clock.now()) + 2)), 'ERR_1011');
  });

  test('create: the plaintext is answered once, only a hash and the prefix are stored, and the key works with the 19 default scopes', async () => {
    const token = await keyManager();
    const issued = await expectOk<IssuedApiKey>(await createKey(token, { name: 'reporting' }));
    expect(issued.api_key).toMatch(/^rail_full_test_[A-Za-z0-9]{40}$/);
    expect(issued).toMatchObject({ name: 'reporting', mode: 'test', key_type: 'secret', expires_at: null, prefix: issued.api_key.slice(0, 'rail_full_test_'.length + 6) });
    expect(issued.scopes).toEqual([...DEFAULT_KEY_SCOPES]);
    const row = await h.db.selectFrom('api_keys').selectAll().where('key_id', '=', issued.key_id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashSecret(issued.api_key));
    expect(JSON.stringify(row)).not.toContain(issued.api_key);
    const listed = (await listKeys()).find((key) => key.key_id === issued.key_id);
    const { api_key: _plaintext, ...entry } = issued;
    expect(listed).toEqual(entry);
    expect(JSON.stringify(await listKeys())).not.toContain(issued.api_key);
    await expectOk(await createPayment(issued.api_key));
    const publishable = await expectOk<IssuedApiKey>(await createKey(token, { name: 'checkout', key_type: 'publishable' }));
    expect(publishable.api_key).toMatch(/^rail_open_test_/);
    await expectApiError(await createKey(token, { name: '' }), 'ERR_2003', 'name');
    await expectApiError(await createKey(token, { name: 'x', mode: 'staging' }), 'ERR_2003', 'mode');
    await expectApiError(await createKey(token, { name: 'x', scopes: ['api_keys:manage'] }), 'ERR_2004', 'scopes');
    // The managed credentials' name is reserved: such a key would be hidden and irrevocable.
    await expectApiError(await createKey(token, { name: ' Service_Gateway ' }), 'ERR_2003', 'name');
  });

  test('GET /v1/api-keys: a session or a secret key; a publishable key is ERR_1003', async () => {
    const { session_token } = await signIn();
    const bySession = await expectOk<ApiKeyEntry[]>(await apiRequest(h, 'GET', '/v1/api-keys', bearer(session_token)));
    const byCookie = await expectOk<ApiKeyEntry[]>(await apiRequest(h, 'GET', '/v1/api-keys', { key: null, headers: { cookie: `rail_session=${session_token}` } }));
    expect(byCookie).toEqual(bySession);
    expect(await listKeys()).toEqual(bySession);
    await expectApiError(await apiRequest(h, 'GET', '/v1/api-keys', { key: h.publishableKey }), 'ERR_1003');
    await expectApiError(await apiRequest(h, 'GET', '/v1/api-keys', { key: null }), 'ERR_1001');
    await expectApiError(await apiRequest(h, 'GET', '/v1/api-keys?unknown_param=1', bearer(session_token)), 'ERR_2004', 'unknown_param');
  });

  test('rotate: the replacement works at once, the old key for 24 hours more, then ERR_1002; a second rotation of it is ERR_4081', async () => {
    const token = await keyManager();
    const original = await expectOk<IssuedApiKey>(await createKey(token, { name: 'to rotate' }));
    const replacement = await expectOk<IssuedApiKey>(await apiRequest(h, 'POST', `/v1/api-keys/${original.key_id}/rotate`, bearer(token)));
    expect(replacement.key_id).not.toBe(original.key_id);
    expect(replacement).toMatchObject({ name: 'to rotate', mode: 'test', key_type: 'secret', scopes: original.scopes, expires_at: null });
    const keys = await listKeys();
    const graceEnds = new Date(h.clock.now().getTime() + DEFAULT_KEY_POLICY.rotationGraceMs).toISOString();
    expect(keys.find((key) => key.key_id === original.key_id)?.expires_at).toBe(graceEnds);
    await expectOk(await createPayment(original.api_key));
    await expectOk(await createPayment(replacement.api_key));
    await expectApiError(await apiRequest(h, 'POST', `/v1/api-keys/${original.key_id}/rotate`, bearer(token)), 'ERR_4081');
    h.clock.advance(DEFAULT_KEY_POLICY.rotationGraceMs - 1);
    await expectOk(await createPayment(original.api_key));
    h.clock.advance(1);
    await expectApiError(await createPayment(original.api_key), 'ERR_1002');
    await expectOk(await createPayment(replacement.api_key));
    expect((await listKeys()).some((key) => key.key_id === original.key_id)).toBe(false);
  });

  test('an ephemeral key works only while the API key that created it does: past a rotation\'s grace period, or once revoked, ERR_1002', async () => {
    const token = await keyManager();
    const customer = await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'ephemeral issuer' } }));
    const ephemeralKeyOf = async (secretKey: string) =>
      (await expectOk<{ secret: string }>(await apiRequest(h, 'POST', '/ephemeral_keys', { key: secretKey, body: { customer_id: customer.customer_id } }))).secret;
    const readCustomer = (ephemeralKey: string) => apiRequest(h, 'GET', `/customers/${customer.customer_id}`, { key: ephemeralKey });

    const rotated = await expectOk<IssuedApiKey>(await createKey(token, { name: 'rotated issuer' }));
    const revoked = await expectOk<IssuedApiKey>(await createKey(token, { name: 'revoked issuer' }));
    const fromRevoked = await ephemeralKeyOf(revoked.api_key);
    await expectOk(await readCustomer(fromRevoked));
    await expectOk(await apiRequest(h, 'DELETE', `/v1/api-keys/${revoked.key_id}`, bearer(token)));
    const { error } = await expectApiErrorResponse(await readCustomer(fromRevoked), 'ERR_1002');
    expect(error['message']).toContain('API key that created this ephemeral key');

    // A rotated key works to the end of its grace period, and so does what it made, within its own hour.
    await expectOk(await apiRequest(h, 'POST', `/v1/api-keys/${rotated.key_id}/rotate`, bearer(token)));
    h.clock.advance(DEFAULT_KEY_POLICY.rotationGraceMs - 30 * MINUTE);
    const fromRotated = await ephemeralKeyOf(rotated.api_key);
    await expectOk(await readCustomer(fromRotated));
    h.clock.advance(30 * MINUTE - 1);
    await expectOk(await readCustomer(fromRotated));
    h.clock.advance(1);
    await expectApiError(await readCustomer(fromRotated), 'ERR_1002');
  });

  test('an ephemeral key stored before its issuer was recorded (migration 0023) keeps its own expiry', async () => {
    const customer = await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'older ephemeral key' } }));
    const secret = `epk_${'o'.repeat(40)}`;
    const now = h.clock.now();
    await h.store.ephemeralKeys.insertEphemeralKey({
      keyId: 'eki_olderThanTheIssuer0',
      accountId: h.boot.account.accountId,
      mode: 'test',
      customerId: customer.customer_id,
      secretHash: hashSecret(secret),
      createdAt: now,
      expiresAt: new Date(now.getTime() + HOUR),
      issuerKeyId: null,
    });
    await expectOk(await apiRequest(h, 'GET', `/customers/${customer.customer_id}`, { key: secret }));
    h.clock.advance(HOUR);
    await expectApiError(await apiRequest(h, 'GET', `/customers/${customer.customer_id}`, { key: secret }), 'ERR_1002');
  });

  test('rotation sends a security e-mail to every operator, in the same transaction, kept while there is no SMTP', async () => {
    const token = await keyManager();
    const original = await expectOk<IssuedApiKey>(await createKey(token, { name: 'mailed' }));
    await expectOk(await apiRequest(h, 'POST', `/v1/api-keys/${original.key_id}/rotate`, bearer(token)));
    const { data } = await expectOk<{ data: { subject: string; to: string; status: string; body: string }[] }>(
      await apiRequest(h, 'GET', '/v1/security-emails', bearer(token)),
    );
    const rotated = data.find((email) => email.subject.includes('"mailed" rotated'));
    expect(rotated).toMatchObject({ to: operator.email, status: 'pending' });
    expect(rotated!.body).toContain(original.key_id);
    expect(rotated!.body).not.toContain(original.api_key);
  });

  test('rotation is rate limited per account: past the limit ERR_4290 with Retry-After, and nothing changes', async () => {
    const limited = await createHarness(engine, { keys: { ...DEFAULT_KEY_POLICY, rotationLimit: { limit: 2, windowSeconds: 600 } } });
    try {
      const creds = limited.boot.createdOperator!;
      const { session_token } = await expectOk<{ session_token: string }>(
        await apiRequest(limited, 'POST', '/v1/sessions', { key: null, body: { email: creds.email, password: creds.password } }),
      );
      await expectOk(await apiRequest(limited, 'POST', '/v1/sessions/verify', { ...bearer(session_token), body: { code: totpCode(creds.totpSecret, totpStep(limited.clock.now())) } }));
      let key = await expectOk<IssuedApiKey>(await apiRequest(limited, 'POST', '/v1/api-keys', { ...bearer(session_token), body: { name: 'busy' } }));
      for (let i = 0; i < 2; i++) key = await expectOk<IssuedApiKey>(await apiRequest(limited, 'POST', `/v1/api-keys/${key.key_id}/rotate`, bearer(session_token)));
      const response = await apiRequest(limited, 'POST', `/v1/api-keys/${key.key_id}/rotate`, bearer(session_token));
      await expectApiErrorResponse(response, 'ERR_4290');
      expect(response.headers.get('retry-after')).toBe('600');
      const stored = await limited.db.selectFrom('api_keys').select(['expires_at']).where('key_id', '=', key.key_id).executeTakeFirstOrThrow();
      expect(stored.expires_at).toBeNull();
      // Parallel rotations of different keys cannot all pass the count: the account is locked while it is read.
      const others = await Promise.all(
        [1, 2, 3].map(async (i) => expectOk<IssuedApiKey>(await apiRequest(limited, 'POST', '/v1/api-keys', { ...bearer(session_token), body: { name: `parallel ${i}` } }))),
      );
      const parallel = await Promise.all(others.map((other) => apiRequest(limited, 'POST', `/v1/api-keys/${other.key_id}/rotate`, bearer(session_token))));
      expect(parallel.map((r) => r.status)).toEqual([429, 429, 429]);
      limited.clock.advance(600_001);
      await expectOk(await apiRequest(limited, 'POST', '/v1/sessions/verify', { ...bearer(session_token), body: { code: totpCode(creds.totpSecret, totpStep(limited.clock.now())) } }));
      const burst = await Promise.all(others.map((other) => apiRequest(limited, 'POST', `/v1/api-keys/${other.key_id}/rotate`, bearer(session_token))));
      expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 429]);
      limited.clock.advance(600_001);
      await expectOk(await apiRequest(limited, 'POST', '/v1/sessions/verify', { ...bearer(session_token), body: { code: totpCode(creds.totpSecret, totpStep(limited.clock.now())) } }));
      await expectOk(await apiRequest(limited, 'POST', `/v1/api-keys/${key.key_id}/rotate`, bearer(session_token)));
    } finally {
      await limited.close();
    }
  });

  test('revoke: the key stops at once (a rotated key in its grace window too); a second revoke answers the same without a second e-mail', async () => {
    const token = await keyManager();
    const key = await expectOk<IssuedApiKey>(await createKey(token, { name: 'leaked' }));
    await expectOk(await createPayment(key.api_key));
    expect(await expectOk(await apiRequest(h, 'DELETE', `/v1/api-keys/${key.key_id}`, bearer(token)))).toEqual({ key_id: key.key_id, revoked: true });
    await expectApiError(await createPayment(key.api_key), 'ERR_1002');
    const emails = async () => (await h.db.selectFrom('security_emails').select('email_id').where('subject', 'like', '%"leaked" revoked%').execute()).length;
    const once = await emails();
    expect(once).toBe(1);
    await expectOk(await apiRequest(h, 'DELETE', `/v1/api-keys/${key.key_id}`, bearer(token)));
    expect(await emails()).toBe(once);

    const rotated = await expectOk<IssuedApiKey>(await createKey(token, { name: 'rotated then leaked' }));
    await expectOk(await apiRequest(h, 'POST', `/v1/api-keys/${rotated.key_id}/rotate`, bearer(token)));
    await expectOk(await createPayment(rotated.api_key));
    await expectOk(await apiRequest(h, 'DELETE', `/v1/api-keys/${rotated.key_id}`, bearer(token)));
    await expectApiError(await createPayment(rotated.api_key), 'ERR_1002');
  });

  test('key ids: malformed ERR_2002, unknown ERR_4080; service_gateway keys are hidden and answer 403 ERR_1010', async () => {
    const token = await keyManager();
    await expectApiError(await apiRequest(h, 'DELETE', '/v1/api-keys/not-a-key', bearer(token)), 'ERR_2002', 'id');
    await expectApiError(await apiRequest(h, 'POST', `/v1/api-keys/key_${'z'.repeat(20)}/rotate`, bearer(token)), 'ERR_4080');
    const gateway = issueApiKey(h.core.ids, {
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType: 'full',
      name: 'service_gateway',
      scopes: DEFAULT_KEY_SCOPES,
      replacesKeyId: null,
      createdAt: h.clock.now(),
    });
    await h.store.apiKeys.insertApiKey(gateway.record);
    expect((await listKeys()).some((key) => key.key_id === gateway.record.keyId)).toBe(false);
    await expectApiError(await apiRequest(h, 'POST', `/v1/api-keys/${gateway.record.keyId}/rotate`, bearer(token)), 'ERR_1010');
    await expectApiError(await apiRequest(h, 'DELETE', `/v1/api-keys/${gateway.record.keyId}`, bearer(token)), 'ERR_1010');
    await expectOk(await createPayment(gateway.plaintext));
  });

  test('an operator without api_keys:manage gets ERR_1004 after a fresh two-factor', async () => {
    const totpSecret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const operatorId = `op_${h.core.ids.secret(20)}`;
    await h.store.operators.insertOperator({
      operatorId,
      accountId: h.boot.account.accountId,
      email: 'viewer@rail.local',
      passwordHash: await hashPassword('viewer password'),
      totpSecret: h.core.operatorSecrets!.seal(totpSecret, operatorId, h.boot.account.accountId),
      scopes: [],
      totpLastStep: null,
      createdAt: h.clock.now(),
    });
    const { session_token } = await signIn({ email: 'viewer@rail.local', password: 'viewer password', totpSecret });
    await expectOk(await verify(session_token, nextCode(totpSecret)));
    await expectApiError(await createKey(session_token), 'ERR_1004');
  });

  test('scopes are enforced: a key without payments:write cannot create a payment but may list them', async () => {
    const readOnly = issueApiKey(h.core.ids, {
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType: 'full',
      name: 'read only',
      scopes: ['payments:read'] satisfies ApiScope[],
      replacesKeyId: null,
      createdAt: h.clock.now(),
    });
    await h.store.apiKeys.insertApiKey(readOnly.record);
    const error = await expectApiError(await createPayment(readOnly.plaintext), 'ERR_1004');
    expect(error['message']).toContain('payments:write');
    await expectOk(await apiRequest(h, 'GET', '/payments/list', { key: readOnly.plaintext }));
    await expectApiError(await apiRequest(h, 'GET', '/customers/list', { key: readOnly.plaintext }), 'ERR_1004');
  });

  test('live keys: an operator creates one; it reaches no rail without live credentials (ERR_3010), and test and live data never mix', async () => {
    const token = await keyManager();
    const live = await expectOk<IssuedApiKey>(await createKey(token, { name: 'production', mode: 'live' }));
    expect(live.api_key).toMatch(/^rail_full_live_/);
    const livePayment = await expectOk<{ payment_id: string }>(await createPayment(live.api_key));
    await expectApiError(
      await apiRequest(h, 'POST', `/payments/${livePayment.payment_id}/confirm`, {
        key: live.api_key,
        body: { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } },
      }),
      'ERR_3010',
    );
    await expectApiError(await apiRequest(h, 'GET', `/payments/${livePayment.payment_id}`), 'ERR_4001');
    const liveCustomer = await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { key: live.api_key, body: { name: 'Live' } }));
    const testCustomer = await expectOk<{ customer_id: string }>(await apiRequest(h, 'POST', '/customers', { body: { name: 'Test' } }));
    await expectApiError(await apiRequest(h, 'GET', `/customers/${liveCustomer.customer_id}`), 'ERR_4006');
    await expectApiError(await apiRequest(h, 'GET', `/customers/${testCustomer.customer_id}`, { key: live.api_key }), 'ERR_4006');
    await expectOk(await apiRequest(h, 'GET', `/customers/${liveCustomer.customer_id}`, { key: live.api_key }));
  });

  test('sign-out ends the session at once; a session also ends after its lifetime', async () => {
    const { session_token } = await signIn();
    const response = await apiRequest(h, 'DELETE', '/v1/sessions', bearer(session_token));
    expect(response.headers.get('set-cookie') ?? '').toMatch(/rail_session=;/);
    expect(await expectOk(response)).toEqual({ ended: true });
    await expectApiError(await verify(session_token), 'ERR_1008');
    await expectApiError(await apiRequest(h, 'GET', '/v1/security-emails', bearer(session_token)), 'ERR_1008');
    const later = await signIn();
    h.clock.advance(DEFAULT_KEY_POLICY.sessionTtlMs);
    await expectApiError(await apiRequest(h, 'GET', '/v1/security-emails', bearer(later.session_token)), 'ERR_1008');
  });
});

describe('the key service unavailable', () => {
  test('key routes answer ERR_5005 (503, retry) when the store cannot be reached, not ERR_5000', async () => {
    const h = await createHarness('sqlite');
    const { email, password } = h.boot.createdOperator!;
    const login = await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }));
    await h.db.destroy();
    await expectApiError(await apiRequest(h, 'GET', '/v1/api-keys'), 'ERR_5005');
    await expectApiError(await apiRequest(h, 'POST', `/v1/api-keys/key_${'a'.repeat(20)}/rotate`, { key: null, headers: { authorization: `Bearer ${login.session_token}` } }), 'ERR_5005');
    await h.close().catch(() => undefined);
  });
});

describe('rate limits of sign-in and two-factor codes', () => {
  let h: Harness;
  beforeAll(async () => {
    const rule = { perAddress: { limit: 100, windowSeconds: 60 }, perKey: { limit: 3, windowSeconds: 60 } };
    h = await createHarness('sqlite', {
      rateLimits: {
        limits: {
          demo_payments: { perAddress: null, perKey: null },
          vault_tokens: { perAddress: null, perKey: null },
          confirm: { perAddress: null, perKey: null },
          client_reads: { perAddress: null, perKey: null },
          client_updates: { perAddress: null, perKey: null },
          simulator: { perAddress: null, perKey: null },
          operator_login: rule,
          operator_login_email: { perAddress: null, perKey: { limit: 6, windowSeconds: 60 } },
          operator_verify: rule,
          failed_authentication: { perAddress: null, perKey: null },
        },
        trustedProxyHops: 1,
      },
    });
  });
  afterAll(async () => h?.close());

  test('sign-in per e-mail and address, so guesses from one address do not lock the operator out; a higher ceiling per e-mail over all addresses; per operator for codes (ERR_4290 with Retry-After)', async () => {
    const { email, password } = h.boot.createdOperator!;
    const from = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}` });
    const signIn = (address: number, guess: string) => apiRequest(h, 'POST', '/v1/sessions', { key: null, headers: from(address), body: { email, password: guess } });
    // A stranger at address 1 spends its three attempts, then is refused even the right password.
    for (let i = 0; i < 3; i++) await expectApiError(await signIn(1, 'guess'), 'ERR_1008');
    const limited = await signIn(1, password);
    await expectApiErrorResponse(limited, 'ERR_4290');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The operator, at another address, signs in (the e-mail's ceiling has 6: 3 spent, this is the 4th).
    await expectOk(await signIn(2, password));
    // Guesses spread over addresses meet the ceiling: two more, then every address is refused.
    await expectApiError(await signIn(3, 'guess'), 'ERR_1008');
    await expectApiError(await signIn(4, 'guess'), 'ERR_1008');
    await expectApiErrorResponse(await signIn(5, password), 'ERR_4290');
    h.clock.advance(60_000);
    const { session_token } = await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, headers: from(9), body: { email, password } }));
    for (let i = 0; i < 3; i++) {
      await expectApiError(await apiRequest(h, 'POST', '/v1/sessions/verify', { key: null, headers: { ...from(i), authorization: `Bearer ${session_token}` }, body: { code: '999999' } }), 'ERR_1011');
    }
    await expectApiErrorResponse(
      await apiRequest(h, 'POST', '/v1/sessions/verify', { key: null, headers: { ...from(20), authorization: `Bearer ${session_token}` }, body: { code: '999999' } }),
      'ERR_4290',
    );
  });
});
