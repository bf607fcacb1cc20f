/**
 * Idempotency-Key on every POST (api-conventions §5), through app.request(): replay, in-flight 409, different
 * request 422, stored 4xx, released 5xx, lease take-over, expiry and sweep, scope (mode, key kind), key syntax,
 * concurrent duplicates (exactly one payment), and every POST operation in /openapi.json honouring the header.
 * Runs on SQLite and PostgreSQL (forEachEngine).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { ApiError, TRY_LATER_CODES } from '../../core/shared/errors';
import { beginIdempotentRequest, finishIdempotentRequest, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, purgeExpiredIdempotencyKeys, requestFingerprint } from '../../core/auth/idempotency';
import { cryptoIds, derivedIds, timeBase62 } from '../../kernel/ids';
import { insertLiveSecretKey } from '../../test-support/api-assertions';
import { createHarness, withOwnConnection, type Harness } from '../../test-support/harness';
import { forEachEngine } from '../../test-support/engines';

type Json = Record<string, unknown>;
const UPI = (vpa: string) => ({ upi: { upi_collect: { vpa_id: vpa } } });

forEachEngine('Idempotency-Key', (engine) => {
  let h: Harness;
  let liveSecretKey: string;
  let seq = 0;
  const newKey = () => `idem-${engine}-${Date.now()}-${(seq += 1)}`;

  beforeAll(async () => {
    h = await createHarness(engine);
    liveSecretKey = await insertLiveSecretKey(h, { fill: 'I', keyId: 'key_live_idempotency_00' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const post = (path: string, body: unknown, idempotencyKey?: string, apiKey = h.secretKey, extra: Record<string, string> = {}) =>
    h.app.request(path, {
      method: 'POST',
      headers: {
        'api-key': apiKey,
        'content-type': 'application/json',
        ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
        ...extra,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function countRows(table: 'payments' | 'idempotency_keys'): Promise<number> {
    return withOwnConnection(h.database, async (db) => {
      const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    });
  }

  const deps = () => ({ store: h.store, clock: h.clock, ids: cryptoIds });
  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const, keyKind: 'secret' });

  test('a request parses its body once, with the key or without: the fingerprint, parseJsonBody and the validator share it', async () => {
    const text = JSON.stringify({ amount: 1501, currency: 'INR', payment_method_data: UPI('success@upi') });
    const parsesOfBody = async (idempotencyKey?: string) => {
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect((await post('/payments', text, idempotencyKey)).status).toBe(200);
        return parse.mock.calls.filter(([source]) => source === text).length;
      } finally {
        parse.mockRestore();
      }
    };
    expect(await parsesOfBody()).toBe(1);
    expect(await parsesOfBody(newKey())).toBe(1);
  });

  test('a body nested too deep for the canonical text is fingerprinted by its bytes: its 4xx is stored and replayed', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const key = newKey();
    const first = await post('/payments', deep, key);
    expect(first.status).toBe(400);
    const again = await post('/payments', deep, key);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
  });

  test('a claim that never becomes durable (a failed WAL sync) fails the request with ERR_5000 instead of answering it', async () => {
    const store = h.store.idempotency;
    const insertClaim = store.insertClaim.bind(store);
    const spy = vi.spyOn(store, 'insertClaim').mockImplementation(async (claim) => {
      const inserted = await insertClaim(claim);
      if (inserted.result !== 'inserted') return inserted;
      const durable = Promise.reject(new Error('EIO: the sync that covers the claim failed'));
      durable.catch(() => undefined);
      return { ...inserted, durable };
    });
    try {
      const response = await post('/payments', { amount: 1500, currency: 'INR' }, newKey());
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ERR_5000');
    } finally {
      spy.mockRestore();
    }
  });

  test('a repeat replays the first response with Idempotent-Replayed: true and creates nothing new', async () => {
    const key = newKey();
    const body = { amount: 1500, currency: 'INR', metadata: { order: 'A-1' } };
    const before = await countRows('payments');
    const first = await post('/payments', body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    // Same request, keys in another order and other whitespace: the same fingerprint.
    const again = await post('/payments', `{ "metadata": {"order":"A-1"}, "currency": "INR", "amount": 1500 }`, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(again.headers.get('x-request-id')).not.toBeNull();
    expect(await again.text()).toBe(firstBody);
    expect(await countRows('payments')).toBe(before + 1);
  });

  test('the IETF sf-string form "key" is the same key as the bare value', async () => {
    const key = newKey();
    const first = await post('/payments', { amount: 100, currency: 'INR' }, key);
    const quoted = await post('/payments', { amount: 100, currency: 'INR' }, `"${key}"`);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(await quoted.json()).toEqual(await first.json());
  });

  test('the same key with a different body, or on another path: 422 ERR_4091, nothing executed', async () => {
    const key = newKey();
    const created = (await (await post('/payments', { amount: 700, currency: 'INR' }, key)).json()) as Json;
    const before = await countRows('payments');
    const otherBody = await post('/payments', { amount: 701, currency: 'INR' }, key);
    expect(otherBody.status).toBe(422);
    expect(await otherBody.json()).toEqual({
      error: { type: 'idempotency_error', code: 'ERR_4091', message: expect.any(String), field_name: 'Idempotency-Key' },
    });
    const otherPath = await post(`/payments/${String(created['payment_id'])}/confirm`, { payment_method_data: UPI('success@upi') }, key);
    expect(otherPath.status).toBe(422);
    expect(((await otherPath.json()) as { error: Json }).error['code']).toBe('ERR_4091');
    expect(await countRows('payments')).toBe(before);
    const retrieved = (await (await h.app.request(`/payments/${String(created['payment_id'])}`, { headers: { 'api-key': h.secretKey } })).json()) as Json;
    expect(retrieved['status']).toBe('requires_payment_method');
  });

  test('a repeat while the first is in flight: 409 ERR_4090; after the 60 s lease the claim is taken over and runs', async () => {
    const key = newKey();
    const body = { amount: 900, currency: 'INR' };
    // A crashed holder: the claim row exists, its response never came.
    const decision = await beginIdempotentRequest(deps(), scope(), key, {
      method: 'POST',
      path: '/payments',
      fingerprint: requestFingerprint('POST', '/payments', { json: body }),
    });
    expect(decision.kind).toBe('execute');
    const blocked = await post('/payments', body, key);
    expect(blocked.status).toBe(409);
    expect(await blocked.json()).toEqual({
      error: { type: 'idempotency_error', code: 'ERR_4090', message: expect.any(String), field_name: 'Idempotency-Key' },
    });
    // A different body is still 422, in flight or not.
    expect((await post('/payments', { amount: 901, currency: 'INR' }, key)).status).toBe(422);
    h.clock.advance(IDEMPOTENCY_LEASE_MS - 1);
    expect((await post('/payments', body, key)).status).toBe(409);
    h.clock.advance(1);
    const before = await countRows('payments');
    const taken = await post('/payments', body, key);
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(await countRows('payments')).toBe(before + 1);
    // The old holder's late completion does not overwrite the new one's response.
    if (decision.kind === 'execute') {
      await finishIdempotentRequest(deps(), scope(), key, decision.claimToken, { status: 200, headers: {}, body: 'stale' });
    }
    const replay = await post('/payments', body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).not.toBe('stale');
  });

  test('4xx answers are stored and replayed (the same request fails the same way); a fixed body needs a new key', async () => {
    const key = newKey();
    const bad = await post('/payments', { amount: -1, currency: 'INR' }, key);
    expect(bad.status).toBe(400);
    const badBody = await bad.text();
    const again = await post('/payments', { amount: -1, currency: 'INR' }, key);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(badBody);
    expect((await post('/payments', { amount: 1, currency: 'INR' }, key)).status).toBe(422);
    // Malformed JSON is fingerprinted as raw bytes and its ERR_2005 replayed too.
    const key2 = newKey();
    expect((await post('/payments', '{"amount": ', key2)).status).toBe(400);
    expect((await post('/payments', '{"amount": ', key2)).headers.get('idempotent-replayed')).toBe('true');
  });

  test('authentication failures are not stored: a retry with a valid key runs', async () => {
    const key = newKey();
    const unauthenticated = await post('/payments', { amount: 100, currency: 'INR' }, key, 'rail_full_test_' + 'x'.repeat(40));
    expect(unauthenticated.status).toBe(401);
    const ok = await post('/payments', { amount: 100, currency: 'INR' }, key);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  /** What a finished claim left: its answer stored, or released (in flight with its lease run out), or nothing. */
  const outcomeOf = async (key: string): Promise<'stored' | 'released' | 'gone' | 'in flight'> => {
    const record = await h.store.idempotency.findKey(scope(), key);
    if (record === undefined) return 'gone';
    if (record.status === 'done') return 'stored';
    return record.lockedAt.getTime() + IDEMPOTENCY_LEASE_MS <= h.clock.now().getTime() ? 'released' : 'in flight';
  };

  test.each([500, 429])('a %s is not stored: the claim is released, and the retry runs with the ids of the first run', async (status) => {
    const key = newKey();
    const request = { method: 'POST', path: '/payments', fingerprint: requestFingerprint('POST', '/payments', { json: { a: 1 } }) };
    const first = await beginIdempotentRequest(deps(), scope(), key, request);
    if (first.kind !== 'execute') throw new Error('expected execute');
    await finishIdempotentRequest(deps(), scope(), key, first.claimToken, { status, headers: status === 429 ? { 'retry-after': '10' } : {}, body: '{}' });
    expect(await outcomeOf(key)).toBe('released');
    h.clock.advance(1_000);
    const second = await beginIdempotentRequest(deps(), scope(), key, request);
    if (second.kind !== 'execute') throw new Error('expected execute');
    // The same claim time and scheme derive the same ids: what the first run committed before its answer is found
    // (a deleted claim gave the retry new ids, and a first run that had committed was done twice).
    expect(second.idsTime).toEqual(first.idsTime);
    expect(second.idsScheme).toBe(first.idsScheme);
    // Another request under the released key is refused, as under any used key.
    const other = { ...request, fingerprint: requestFingerprint('POST', '/payments', { json: { a: 9 } }) };
    await finishIdempotentRequest(deps(), scope(), key, second.claimToken, { status: 500, headers: {}, body: '' });
    await expect(beginIdempotentRequest(deps(), scope(), key, other)).rejects.toMatchObject({ code: 'ERR_4091' });
  });

  test('an answer that asks to try again later (TRY_LATER_CODES, or an error thrown with tryLater) is not stored; the same code without it is', async () => {
    const request = { method: 'POST', path: '/payments', fingerprint: requestFingerprint('POST', '/payments', { json: { a: 2 } }) };
    const finishWith = async (error: ApiError, status = error.status) => {
      const key = newKey();
      const first = await beginIdempotentRequest(deps(), scope(), key, request);
      if (first.kind !== 'execute') throw new Error('expected execute');
      await finishIdempotentRequest(deps(), scope(), key, first.claimToken, { status, headers: {}, body: '{}' }, error);
      return outcomeOf(key);
    };
    for (const code of TRY_LATER_CODES) expect(await finishWith(new ApiError(code, 'later')), code).toBe('released');
    expect(await finishWith(new ApiError('ERR_4003', 'kept changing; retry', { tryLater: true }))).toBe('released');
    expect(await finishWith(new ApiError('ERR_4111', 'being charged; try again', { tryLater: true }))).toBe('released');
    expect(await finishWith(new ApiError('ERR_4003', 'not allowed in this status'))).toBe('stored');
    expect(await finishWith(new ApiError('ERR_4002', 'another body'))).toBe('stored');
    // An error that did not give the answer (another status) decides nothing.
    expect(await finishWith(new ApiError('ERR_4052', 'later'), 200)).toBe('stored');
    // docs/idempotency.md names the list.
    const documented = readFileSync(resolve(import.meta.dirname, '../../../../docs/idempotency.md'), 'utf8');
    for (const code of TRY_LATER_CODES) expect(documented, code).toContain(code);
  });

  test('409 ERR_4052 (a delivery attempt holds the event) is not replayed: the retry it asks for, with the same key, runs', async () => {
    const account = (await h.store.accounts.findAccountById(h.boot.account.accountId))!;
    // No one listens on port 9: the retry's attempt fails at once and is recorded; what matters is that it runs.
    await h.store.accounts.updateAccountSettings(account.accountId, { ...account.settings, webhook: { url: 'http://127.0.0.1:9/hook', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
    try {
      const eventId = `evt_idem_${engine}_${Date.now()}`;
      const createdAt = h.clock.now();
      await h.store.outbox.insertEvent({
        eventId,
        accountId: account.accountId,
        mode: 'test',
        eventType: 'payment_succeeded',
        objectType: 'payment',
        objectId: 'pay_idem_event',
        objectVersion: 0,
        createdAt,
        payload: { event_id: eventId, event_type: 'payment_succeeded', created: createdAt.toISOString(), account_id: account.accountId, mode: 'test', content: { type: 'payment_details', object: { payment_id: 'pay_idem_event' } } },
      });
      const eventScope = { accountId: account.accountId, mode: 'test' as const };
      expect(await h.store.webhooks.claimEvent(eventScope, eventId, createdAt, new Date(createdAt.getTime() + 60_000), 'lease_busy')).toBeDefined();
      const key = newKey();
      const busy = await post(`/events/${eventId}/retry`, '', key);
      expect(busy.status).toBe(409);
      expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('ERR_4052');
      await h.store.webhooks.releaseEvent(eventId, 'lease_busy');
      const retried = await post(`/events/${eventId}/retry`, '', key);
      expect(retried.status, await retried.clone().text()).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expect(((await retried.json()) as { attempt_count: number }).attempt_count).toBe(1);
      // The answer that ran is the one kept.
      const replayed = await post(`/events/${eventId}/retry`, '', key);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.status).toBe(200);
    } finally {
      await h.store.accounts.updateAccountSettings(account.accountId, account.settings);
    }
  });

  test('keys expire after 24 h: then the key is new again, and the sweep deletes expired rows', async () => {
    const key = newKey();
    const first = await post('/payments', { amount: 300, currency: 'INR' }, key);
    expect(first.status).toBe(200);
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await post('/payments', { amount: 300, currency: 'INR' }, key)).headers.get('idempotent-replayed')).toBe('true');
    h.clock.advance(1);
    const reused = await post('/payments', { amount: 301, currency: 'INR' }, key);
    expect(reused.status).toBe(200);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    h.clock.advance(IDEMPOTENCY_TTL_MS);
    const rowsBefore = await countRows('idempotency_keys');
    expect(rowsBefore).toBeGreaterThan(0);
    expect(await purgeExpiredIdempotencyKeys(deps())).toBe(rowsBefore);
    expect(await countRows('idempotency_keys')).toBe(0);
  });

  test('scope: account + mode + key kind; the same key in live mode or with the publishable key is another key', async () => {
    const key = newKey();
    const created = (await (await post('/payments', { amount: 100, currency: 'INR' }, key)).json()) as Json;
    const live = await post('/payments', { amount: 100, currency: 'INR' }, key, liveSecretKey);
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    expect(live.status).toBe(200);
    // A publishable-key caller never receives what a secret-key call stored (here: not the create response).
    const publishable = await post('/payments', { amount: 100, currency: 'INR' }, key, h.publishableKey);
    expect(publishable.status).toBe(401);
    expect(((await publishable.json()) as { error: Json }).error['code']).toBe('ERR_1003');
    const confirm = await post(
      `/payments/${String(created['payment_id'])}/confirm`,
      { client_secret: created['client_secret'], payment_method_data: UPI('success@upi') },
      key,
      h.publishableKey,
    );
    expect(confirm.status).toBe(200);
    expect(((await confirm.json()) as Json)['status']).toBe('succeeded');
  });

  test('key syntax: 1..255 visible ASCII characters, else 400 ERR_2003 naming Idempotency-Key (nothing runs)', async () => {
    const before = await countRows('payments');
    for (const bad of ['x'.repeat(256), '', '   ', '""', 'caf\u00e9']) {
      const response = await post('/payments', { amount: 100, currency: 'INR' }, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(await response.json()).toEqual({
        error: { type: 'invalid_request', code: 'ERR_2003', message: expect.any(String), field_name: 'Idempotency-Key' },
      });
    }
    expect(await countRows('payments')).toBe(before);
    expect((await post('/payments', { amount: 100, currency: 'INR' }, 'k'.repeat(255))).status).toBe(200);
  });

  test('GET ignores the header', async () => {
    const key = newKey();
    const created = (await (await post('/payments', { amount: 100, currency: 'INR' })).json()) as Json;
    for (let i = 0; i < 2; i += 1) {
      const response = await h.app.request(`/payments/${String(created['payment_id'])}`, { headers: { 'api-key': h.secretKey, 'idempotency-key': key } });
      expect(response.status).toBe(200);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
    }
  });

  test('20 concurrent duplicates: exactly one payment is created; the others get the replay or 409 ERR_4090', async () => {
    const key = newKey();
    const body = { amount: 4200, currency: 'INR', payment_method_data: UPI('success@upi'), confirm: true };
    const before = await countRows('payments');
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/payments', body, key)));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Json[];
    expect(await countRows('payments')).toBe(before + 1);
    const ok = bodies.filter((_, i) => responses[i]?.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((b) => b['payment_id'])).size).toBe(1);
    expect(ok[0]?.['status']).toBe('succeeded');
    for (const [i, response] of responses.entries()) {
      if (response.status === 200) continue;
      expect(response.status).toBe(409);
      expect((bodies[i] as { error: Json }).error['code']).toBe('ERR_4090');
    }
    // Once done, every repeat is the replay.
    const late = await post('/payments', body, key);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(((await late.json()) as Json)['payment_id']).toBe(ok[0]?.['payment_id']);
  });

  test('20 concurrent confirms with one key: one confirm runs, one payment succeeds, no ERR_4003 from a duplicate', async () => {
    const created = (await (await post('/payments', { amount: 100, currency: 'INR' })).json()) as Json;
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(`/payments/${String(created['payment_id'])}/confirm`, { payment_method_data: UPI('success@upi') }, key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    for (const response of responses.filter((r) => r.status === 200)) {
      expect(((await response.json()) as Json)['status']).toBe('succeeded');
    }
    const events = await h.store.outbox.listEventsForObject({ accountId: h.boot.account.accountId, mode: 'test' }, String(created['payment_id']));
    expect(events.filter((e) => e.eventType === 'payment_succeeded')).toHaveLength(1);
  });

  test('every POST operation in /openapi.json honours Idempotency-Key (routes added later are covered)', async () => {
    const spec = (await (await h.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    // POST /vault/tokens opts out on purpose (card data: no fingerprint of the number or CVC, no stored psp_token);
    // the vault suite asserts that it ignores the header and stores nothing.
    const NOT_IDEMPOTENT = new Set(['/vault/tokens']);
    // The /v1 key, session, operator and webhook-endpoint routes take an operator session, not an API key: the
    // Idempotency-Key protocol is keyed by the API key (docs/idempotency.md) and does not apply to them.
    const posts = Object.entries(spec.paths)
      .filter(([path, ops]) => 'post' in ops && !NOT_IDEMPOTENT.has(path) && !path.startsWith('/v1/'))
      .map(([path]) => path.replace(/\{[^}]+\}/g, 'probe_id'));
    expect(posts.length).toBeGreaterThan(0);
    for (const path of posts) {
      const key = newKey();
      // An unknown field: a deterministic 4xx after authentication on every operation, with no side effect.
      let first = await post(path, { idempotency_probe: 1 }, key);
      let apiKey = h.secretKey;
      if (first.status === 401) {
        apiKey = h.publishableKey;
        first = await post(path, { idempotency_probe: 1 }, key, apiKey);
      }
      if (first.status === 401) {
        // An ephemeral-key operation (a customer's default payment method).
        const customer = (await (await post('/customers', { name: 'probe' })).json()) as Json;
        apiKey = String(((await (await post('/ephemeral_keys', { customer_id: customer['customer_id'] })).json()) as Json)['secret']);
        first = await post(path, { idempotency_probe: 1 }, key, apiKey);
      }
      expect(first.status, path).toBeLessThan(500);
      const second = await post(path, { idempotency_probe: 1 }, key, apiKey);
      expect(second.headers.get('idempotent-replayed'), path).toBe('true');
      expect(second.status, path).toBe(first.status);
      expect(await second.text(), path).toBe(await first.text());
    }
  });

  test('claims are atomic under contention in the store itself: 30 racing claims, one execute', async () => {
    const key = newKey();
    const request = { method: 'POST', path: '/x', fingerprint: 'f'.repeat(64) };
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => beginIdempotentRequest(deps(), scope(), key, request)));
    const executes = results.filter((r) => r.status === 'fulfilled' && r.value.kind === 'execute');
    expect(executes).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('ERR_4090');
    }
  });

  /**
   * The crash between the effect's commit and the stored answer, made on purpose: the key's record is put back to
   * "in flight, no answer" as the dead process left it. Once its lease has run out, the retry must find what the
   * first run created instead of creating it again.
   */
  async function crashBeforeTheAnswerWasStored(key: string): Promise<void> {
    await h.db
      .updateTable('idempotency_keys')
      .set({ status: 'in_flight', response_status: null, response_headers: null, response_body: null, locked_at: h.clock.now().toISOString() })
      .where('idempotency_key', '=', key)
      .execute();
  }

  test('a retry after a crash that left the key in flight answers the payment the first run created, never a second one', async () => {
    const key = newKey();
    const body = { amount: 23_456, currency: 'INR', description: `crash ${key}` };
    const first = (await (await post('/payments', body, key)).json()) as { payment_id: string };
    await crashBeforeTheAnswerWasStored(key);
    expect((await post('/payments', body, key)).status).toBe(409);
    h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retried = await post('/payments', body, key);
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { payment_id: string }).payment_id).toBe(first.payment_id);
    const rows = await h.db.selectFrom('payments').select('payment_id').where('description', '=', `crash ${key}`).execute();
    expect(rows.map((row) => row.payment_id)).toEqual([first.payment_id]);
  });

  test('the same for a refund and a customer: the retry after a crash finds the first one', async () => {
    const paymentKey = newKey();
    const payment = (await (await post('/payments', { amount: 10_000, currency: 'INR', confirm: true, payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } }, paymentKey)).json()) as { payment_id: string };
    for (const [path, body, idField, table] of [
      ['/refunds', { payment_id: payment.payment_id, amount: 1_000 }, 'refund_id', 'refunds'],
      ['/customers', { name: `crash ${paymentKey}` }, 'customer_id', 'customers'],
    ] as const) {
      const key = newKey();
      const first = (await (await post(path, body, key)).json()) as Record<string, string>;
      await crashBeforeTheAnswerWasStored(key);
      h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
      const retried = (await (await post(path, body, key)).json()) as Record<string, string>;
      expect(retried[idField], path).toBe(first[idField]);
      const column = idField === 'refund_id' ? 'refund_id' : 'customer_id';
      const rows = await h.db.selectFrom(table).select(column).where(column, '=', first[idField]!).execute();
      expect(rows).toHaveLength(1);
    }
    const refunds = await h.db.selectFrom('refunds').select('refund_id').where('payment_id', '=', payment.payment_id).execute();
    expect(refunds).toHaveLength(1);
  });

  test('a keyed payment\'s id starts with its claim\'s time, as a random one does; a re-run of a claim stored before ids had it derives the id as then', async () => {
    const key = newKey();
    const body = { amount: 24_680, currency: 'INR', description: `timed ${key}` };
    const claimedAt = h.clock.now();
    const first = (await (await post('/payments', body, key)).json()) as { payment_id: string };
    expect(first.payment_id.slice(4, 11)).toBe(timeBase62(claimedAt.getTime()));
    // A claim as an earlier version stored it (no ids time), left in flight by a crash before it created anything.
    const oldKey = newKey();
    const oldBody = { amount: 24_681, currency: 'INR' };
    await beginIdempotentRequest(deps(), scope(), oldKey, { method: 'POST', path: '/payments', fingerprint: requestFingerprint('POST', '/payments', { json: oldBody }) });
    await h.db.updateTable('idempotency_keys').set({ ids_time: null }).where('idempotency_key', '=', oldKey).execute();
    h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const rerun = (await (await post('/payments', oldBody, oldKey)).json()) as { payment_id: string };
    const seed = `${scope().accountId}|test|secret|${oldKey}|${requestFingerprint('POST', '/payments', { json: oldBody })}`;
    expect(rerun.payment_id).toBe(derivedIds(seed, cryptoIds).id('payment'));
  });

  test('a key reused after its expiry with the same request is a new request: a new customer, a new payment', async () => {
    for (const [path, body, idField] of [
      ['/customers', { name: 'reused key' }, 'customer_id'],
      ['/payments', { amount: 13_579, currency: 'INR' }, 'payment_id'],
    ] as const) {
      const key = newKey();
      const first = (await (await post(path, body, key)).json()) as Record<string, string>;
      h.clock.advance(IDEMPOTENCY_TTL_MS + 1);
      const reused = await post(path, body, key);
      expect(reused.status, path).toBe(200);
      expect(reused.headers.get('idempotent-replayed'), path).toBeNull();
      expect(((await reused.json()) as Record<string, string>)[idField], path).not.toBe(first[idField]);
    }
  });

  test('a re-run of a claim stored before migration 0026 (no ids scheme) derives the ids that version derived', async () => {
    const key = newKey();
    const body = { name: `scheme 1 ${key}` };
    const claimedAt = h.clock.now();
    await beginIdempotentRequest(deps(), scope(), key, { method: 'POST', path: '/customers', fingerprint: requestFingerprint('POST', '/customers', { json: body }) });
    await h.db.updateTable('idempotency_keys').set({ ids_scheme: null }).where('idempotency_key', '=', key).execute();
    h.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const rerun = (await (await post('/customers', body, key)).json()) as { customer_id: string };
    const seed = `${scope().accountId}|test|secret|${key}|${requestFingerprint('POST', '/customers', { json: body })}`;
    expect(rerun.customer_id).toBe(derivedIds(seed, cryptoIds, claimedAt, 1).id('customer'));
    expect(rerun.customer_id).not.toBe(derivedIds(seed, cryptoIds, claimedAt, 2).id('customer'));
  });

  test('without the key, or with another body, ids stay random: two creates are two payments', async () => {
    const body = { amount: 777, currency: 'INR' };
    const a = (await (await post('/payments', body)).json()) as { payment_id: string };
    const b = (await (await post('/payments', body)).json()) as { payment_id: string };
    expect(a.payment_id).not.toBe(b.payment_id);
  });
});
