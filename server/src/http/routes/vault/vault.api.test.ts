/**
 * The vault and simulator suite: POST /vault/tokens (origin, auth, validation, encryption at rest, single use,
 * expiry, binding, concurrency), card outcomes and the 3DS page, crypto and bank transfer / mobile money
 * simulators, payment-method listing, and scans proving no card number or CVC lands in the database or the logs.
 * Runs on SQLite and PostgreSQL (forEachEngine).
 */
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ErrorCode } from '../../../../../protocol/errors';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { CreateVaultTokenResponse } from '../../../../../protocol/api/vault';
import type { AccountSettings, RailCapabilities } from '../../../kernel/account-settings-types';
import { wipeExpiredVaultTokens } from '../../../core/vault/wipe-expired-vault-tokens';
import { passesLuhn } from '../../../../../protocol/luhn';
import { createLogger } from '../../../logger';
import { BANK_TRANSFER_RESOLVE_AFTER_MS } from '../../../rails/simulator/bank-transfer-simulator';
import { CRYPTO_VALIDITY_MS } from '../../../rails/simulator/crypto-simulator';
import type { Engine } from '../../../storage/database';
import { apiRequest, expectApiErrorResponse, type ApiRequestOptions } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';
import { ALL_RAILS_SETTINGS } from '../../../test-support/fixtures';
import { DEFAULT_ACCOUNT_SETTINGS } from '../../../core/accounts/account-settings';

type Json = Record<string, unknown>;

const JS_ORIGIN = 'http://127.0.0.1:8081';
const BASE_URL = 'http://127.0.0.1:8080';
const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };
const CARDS = { success: '4242424242424242', declined: '4000000000000002', threeDs: '4000003800000446', other: '5555555555554444' };
const CVC = '9183';

function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
}

forEachEngine('Vault API', (engine) => {
  let h: Harness;
  let plain: Harness;
  const logLines: string[] = [];

  beforeAll(async () => {
    [h, plain] = await Promise.all([
      createHarness(engine, { settings: ALL_RAILS_SETTINGS, logger: createLogger('trace', logSink(logLines)) }),
      createHarness(engine),
    ]);
  });

  afterAll(async () => {
    await Promise.all([h?.close(), plain?.close()]);
  });

  /** apiRequest on either harness; `origin`, when set, overrides any Origin given in headers. */
  const request = (
    target: Harness,
    method: string,
    path: string,
    { origin, ...options }: Omit<ApiRequestOptions, 'raw'> & { origin?: string | null } = {},
  ) =>
    apiRequest(target, method, path, {
      ...options,
      headers: origin !== undefined && origin !== null ? { ...options.headers, origin } : options.headers,
    });
  /** Returns the raw body text, for the scans that prove no card data is echoed. */
  const expectError = async (response: Response, code: ErrorCode, fieldName?: string) => (await expectApiErrorResponse(response, code, fieldName)).text;
  const createPayment = async (target: Harness, body: Json = {}) => {
    const response = await request(target, 'POST', '/payments', { body: { amount: 10_000, currency: 'USD', ...body } });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as PaymentResponse;
  };
  const cardBody = (clientSecret: string, overrides: Json = {}): Json => ({
    client_secret: clientSecret,
    card_number: CARDS.success,
    card_exp_month: '12',
    card_exp_year: '2030',
    card_cvc: CVC,
    card_holder_name: 'Ada Lovelace',
    ...overrides,
  });
  const tokenize = (target: Harness, body: Json, options: { key?: string | null; origin?: string | null } = {}) =>
    request(target, 'POST', '/vault/tokens', { key: options.key === undefined ? target.publishableKey : options.key, origin: options.origin === undefined ? JS_ORIGIN : options.origin, body });
  const mint = async (target: Harness, payment: PaymentResponse, overrides: Json = {}) => {
    const response = await tokenize(target, cardBody(payment.client_secret, overrides));
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as CreateVaultTokenResponse;
  };
  const confirmWithToken = (target: Harness, payment: PaymentResponse, token: string, extra: Json = {}, key?: string) =>
    request(target, 'POST', `/payments/${payment.payment_id}/confirm`, {
      key: key ?? target.publishableKey,
      body: {
        ...(key === undefined ? { client_secret: payment.client_secret } : {}),
        payment_method: 'card',
        payment_method_type: 'credit',
        payment_method_data: { psp_token: token },
        ...extra,
      },
    });
  const cardPayment = async (number: string, paymentBody: Json = {}) => {
    const payment = await createPayment(h, paymentBody);
    const token = await mint(h, payment, { card_number: number });
    const response = await confirmWithToken(h, payment, token.psp_token);
    expect(response.status, await response.clone().text()).toBe(200);
    return { payment: (await response.json()) as PaymentResponse, token };
  };
  const rawToken = async (target: Harness, tokenId: string) =>
    target.db.selectFrom('vault_tokens').selectAll().where('token_id', '=', tokenId).executeTakeFirstOrThrow();
  const retrieve = async (target: Harness, paymentId: string) => {
    const response = await request(target, 'GET', `/payments/${paymentId}`);
    expect(response.status).toBe(200);
    return (await response.json()) as PaymentResponse;
  };
  const events = async (target: Harness, paymentId: string) =>
    (await target.store.outbox.listEventsForObject({ accountId: target.boot.account.accountId, mode: 'test' }, paymentId)).map((event) => event.eventType);
  /** Drives a simulator page: GET the page, then POST its form with the chosen button. */
  const submitSimulatorPage = async (url: string, decision: 'complete' | 'fail') => {
    // A second later, so the outbox events of confirm and of the answer sort by time.
    h.clock.advance(1000);
    const target = new URL(url);
    const page = await h.app.request(`${target.pathname}${target.search}`);
    expect(page.status, await page.clone().text()).toBe(200);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
    return h.app.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ account: field('account'), challenge: field('challenge'), decision }).toString(),
    });
  };

  describe(`[${engine}] POST /vault/tokens`, () => {
    test('ignores Idempotency-Key: each call mints its own token and no idempotency row is stored', async () => {
      const payment = await createPayment(h);
      const key = `vault_idem_${engine}_${Date.now().toString(36)}`;
      const send = () =>
        request(h, 'POST', '/vault/tokens', { key: h.publishableKey, origin: JS_ORIGIN, body: cardBody(payment.client_secret), headers: { 'idempotency-key': key } });
      const first = await send();
      const second = await send();
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      const [a, b] = [(await first.json()) as CreateVaultTokenResponse, (await second.json()) as CreateVaultTokenResponse];
      expect(a.psp_token).not.toBe(b.psp_token);
      expect(await h.db.selectFrom('idempotency_keys').select('idempotency_key').where('idempotency_key', '=', key).execute()).toEqual([]);
    });

    test('mints a single-use psp_token for the payment, with a display summary and the frame-only CORS header', async () => {
      const payment = await createPayment(h);
      const response = await tokenize(h, cardBody(payment.client_secret));
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(JS_ORIGIN);
      const body = (await response.json()) as CreateVaultTokenResponse;
      expect(body.psp_token).toMatch(/^tok_[A-Za-z0-9]{20}$/);
      expect(body.expires_at).toBe(new Date(h.clock.now().getTime() + 15 * 60_000).toISOString());
      expect(body.card).toEqual({ last4: '4242', card_network: 'Visa', exp_month: '12', exp_year: '2030', card_holder_name: 'Ada Lovelace' });
      expect(JSON.stringify(body)).not.toContain(CARDS.success);
    });

    test('a two-digit year is read as 20YY; the holder name is optional', async () => {
      const payment = await createPayment(h);
      const body = await mint(h, payment, { card_exp_year: '31', card_holder_name: undefined, card_number: '378282246310005', card_cvc: '1234' });
      expect(body.card).toEqual({ last4: '0005', card_network: 'AmericanExpress', exp_month: '12', exp_year: '2031', card_holder_name: null });
    });

    test('the token never outlives the client_secret', async () => {
      const payment = await createPayment(h, { session_expiry: 120 });
      const body = await mint(h, payment);
      expect(body.expires_at).toBe(payment.expires_on);
    });

    test('CORS preflight answers the js_url origin only', async () => {
      const preflight = (origin: string) =>
        h.app.request('/vault/tokens', {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'api-key,content-type' },
        });
      expect((await preflight(JS_ORIGIN)).headers.get('access-control-allow-origin')).toBe(JS_ORIGIN);
      expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
      // The rest of the API keeps its open policy.
      const other = await h.app.request('/payments', { method: 'OPTIONS', headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' } });
      expect(other.headers.get('access-control-allow-origin')).toBe('*');
    });

    test.each([
      ['no Origin header', null],
      ['another origin', 'https://evil.example'],
      ['the API origin', BASE_URL],
      ['the js origin with a path', `${JS_ORIGIN}/frame/`],
      ['another port', 'http://127.0.0.1:8082'],
    ])('%s: 403 ERR_1009, before the key or body is read', async (_name, origin) => {
      const payment = await createPayment(h);
      await expectError(await tokenize(h, cardBody(payment.client_secret), { origin }), 'ERR_1009');
      await expectError(await tokenize(h, cardBody(payment.client_secret), { origin, key: null }), 'ERR_1009');
    });

    test('authentication: no key ERR_1001, a secret key ERR_1003, a bad key ERR_1002', async () => {
      const payment = await createPayment(h);
      await expectError(await tokenize(h, cardBody(payment.client_secret), { key: null }), 'ERR_1001');
      await expectError(await tokenize(h, cardBody(payment.client_secret), { key: h.secretKey }), 'ERR_1003');
      await expectError(await tokenize(h, cardBody(payment.client_secret), { key: `rail_open_test_${'x'.repeat(40)}` }), 'ERR_1002');
    });

    test('client_secret: missing ERR_2001, unknown or another payment\'s ERR_1005, expired ERR_1006', async () => {
      const payment = await createPayment(h);
      const other = await createPayment(h);
      const { client_secret: _omit, ...withoutSecret } = cardBody(payment.client_secret);
      await expectError(await tokenize(h, withoutSecret), 'ERR_2001', 'client_secret');
      await expectError(await tokenize(h, cardBody(`${payment.payment_id}_secret_${'A'.repeat(20)}`)), 'ERR_1005', 'client_secret');
      await expectError(await tokenize(h, cardBody('not-a-secret')), 'ERR_1005', 'client_secret');
      await expectError(await tokenize(h, cardBody(other.client_secret.replace(other.payment_id, payment.payment_id))), 'ERR_1005');
      const shortLived = await createPayment(h, { session_expiry: 60 });
      h.clock.advance(61_000);
      await expectError(await tokenize(h, cardBody(shortLived.client_secret)), 'ERR_1006', 'client_secret');
    });

    test('a payment that is no longer confirmable: ERR_4003', async () => {
      const { payment } = await cardPayment(CARDS.success);
      expect(payment.status).toBe('succeeded');
      await expectError(await tokenize(h, cardBody(payment.client_secret)), 'ERR_4003');
    });

    test('a payment in a currency the card acquirer does not take: ERR_4004', async () => {
      const payment = await createPayment(h, { currency: 'KES' });
      await expectError(await tokenize(h, cardBody(payment.client_secret)), 'ERR_4004');
    });

    test.each<[string, Json, string]>([
      ['Luhn failure', { card_number: '4242424242424241' }, 'card_number'],
      ['too short', { card_number: '42424242424' }, 'card_number'],
      ['too long', { card_number: '42424242424242424242' }, 'card_number'],
      ['spaces', { card_number: '4242 4242 4242 4242' }, 'card_number'],
      ['letters', { card_number: '4242abcd42424242' }, 'card_number'],
      ['a number, not a string', { card_number: 4242424242424242 }, 'card_number'],
      ['month 13', { card_exp_month: '13' }, 'card_exp_month'],
      ['month without zero', { card_exp_month: '1' }, 'card_exp_month'],
      ['three-digit year', { card_exp_year: '203' }, 'card_exp_year'],
      ['expired year', { card_exp_year: '2024' }, 'card_exp_year'],
      ['year too far ahead', { card_exp_year: '2099' }, 'card_exp_year'],
      ['short CVC', { card_cvc: '12' }, 'card_cvc'],
      ['long CVC', { card_cvc: '12345' }, 'card_cvc'],
      ['holder name over 100', { card_holder_name: 'n'.repeat(101) }, 'card_holder_name'],
    ])('%s: ERR_2003 naming the field, never echoing the value', async (_name, overrides, field) => {
      const payment = await createPayment(h);
      const text = await expectError(await tokenize(h, cardBody(payment.client_secret, overrides)), 'ERR_2003', field);
      const value = String(Object.values(overrides)[0]);
      if (value.length >= 3) expect(text).not.toContain(value);
      expect(text).not.toContain(CVC);
    });

    test('an expiry month already past in the current year: ERR_2003 card_exp_month', async () => {
      const payment = await createPayment(h);
      const now = h.clock.now();
      if (now.getUTCMonth() === 0) {
        // January: no earlier month this year; December of last year is an expired year instead.
        await expectError(await tokenize(h, cardBody(payment.client_secret, { card_exp_year: String(now.getUTCFullYear() - 1) })), 'ERR_2003', 'card_exp_year');
      } else {
        await expectError(await tokenize(h, cardBody(payment.client_secret, { card_exp_month: '01', card_exp_year: String(now.getUTCFullYear()) })), 'ERR_2003', 'card_exp_month');
      }
      // The current month is still valid.
      const month = String(now.getUTCMonth() + 1).padStart(2, '0');
      await mint(h, payment, { card_exp_month: month, card_exp_year: String(now.getUTCFullYear()) });
    });

    test('missing card field ERR_2001; unknown field ERR_2004; not JSON ERR_2005', async () => {
      const payment = await createPayment(h);
      const { card_cvc: _cvc, ...withoutCvc } = cardBody(payment.client_secret);
      await expectError(await tokenize(h, withoutCvc), 'ERR_2001', 'card_cvc');
      await expectError(await tokenize(h, cardBody(payment.client_secret, { card_brand: 'visa' })), 'ERR_2004', 'card_brand');
      const response = await h.app.request('/vault/tokens', {
        method: 'POST',
        headers: { origin: JS_ORIGIN, 'api-key': h.publishableKey, 'content-type': 'application/json' },
        body: `{"card_number": "${CARDS.success}",`,
      });
      const text = await expectError(response, 'ERR_2005');
      expect(text).not.toContain(CARDS.success);
    });

    test('without a card acquirer (default account): minting and a psp_token confirm answer ERR_4004', async () => {
      const payment = await createPayment(plain);
      await expectError(await tokenize(plain, cardBody(payment.client_secret)), 'ERR_4004');
      await expectError(await confirmWithToken(plain, payment, `tok_${'a'.repeat(20)}`), 'ERR_4004');
      expect(await plain.db.selectFrom('vault_tokens').selectAll().execute()).toEqual([]);
    });
  });

  describe(`[${engine}] vault storage`, () => {
    test('rows hold ciphertext only; the same card encrypts differently per token; both ciphertexts are deleted at use', async () => {
      const payment = await createPayment(h);
      const first = await mint(h, payment);
      const second = await mint(h, payment);
      const [a, b] = [await rawToken(h, first.psp_token), await rawToken(h, second.psp_token)];
      for (const row of [a, b]) {
        const text = JSON.stringify(row);
        expect(text).not.toContain(CARDS.success);
        expect(text).not.toContain(CVC);
        expect(text).not.toContain('Ada Lovelace');
        expect(row.card_ciphertext).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
        expect(row.cvc_ciphertext).toMatch(/^v1\./);
        expect(row).toMatchObject({ last4: '4242', card_network: 'Visa', exp_month: '12', exp_year: '2030', used_at: null, payment_id: payment.payment_id });
      }
      expect(a.card_ciphertext).not.toBe(b.card_ciphertext);
      expect(a.cvc_ciphertext).not.toBe(b.cvc_ciphertext);
      expect(a.card_ciphertext.split('.')[1]).not.toBe(b.card_ciphertext.split('.')[1]);

      const confirmed = await confirmWithToken(h, payment, first.psp_token);
      expect(confirmed.status).toBe(200);
      const used = await rawToken(h, first.psp_token);
      expect(used.cvc_ciphertext).toBeNull();
      expect(used.used_at).toBe(h.clock.now().toISOString());
      expect(used.card_ciphertext).toBe('');
      // The other token is untouched until it is used or expires.
      expect(await rawToken(h, second.psp_token)).toMatchObject({ card_ciphertext: b.card_ciphertext, cvc_ciphertext: b.cvc_ciphertext });
    });

    test('the housekeeping sweep deletes the ciphertexts of expired tokens only; an expired token stays unusable', async () => {
      const payment = await createPayment(h);
      const old = await mint(h, payment);
      h.clock.advance(10 * 60_000);
      const later = await createPayment(h);
      const fresh = await mint(h, later);
      const freshRow = await rawToken(h, fresh.psp_token);
      h.clock.advance(5 * 60_000);
      expect(await wipeExpiredVaultTokens({ store: h.store, clock: h.clock })).toBeGreaterThanOrEqual(1);
      expect(await rawToken(h, old.psp_token)).toMatchObject({ card_ciphertext: '', cvc_ciphertext: null, used_at: null, last4: '4242' });
      expect(await rawToken(h, fresh.psp_token)).toMatchObject({ card_ciphertext: freshRow.card_ciphertext, cvc_ciphertext: freshRow.cvc_ciphertext });
      expect(await wipeExpiredVaultTokens({ store: h.store, clock: h.clock })).toBe(0);
      expect((await confirmWithToken(h, later, fresh.psp_token)).status).toBe(200);
    });

    test('a token is found only in its own account and mode', async () => {
      const payment = await createPayment(h);
      const token = await mint(h, payment);
      const accountId = h.boot.account.accountId;
      expect(await h.store.vaultTokens.findToken({ accountId, mode: 'test' }, token.psp_token)).toBeDefined();
      expect(await h.store.vaultTokens.findToken({ accountId, mode: 'live' }, token.psp_token)).toBeUndefined();
      expect(await h.store.vaultTokens.findToken({ accountId: 'acc_other', mode: 'test' }, token.psp_token)).toBeUndefined();
      expect(await h.store.vaultTokens.markTokenUsed({ accountId, mode: 'live' }, token.psp_token, h.clock.now())).toBe(false);
      expect(await h.store.vaultTokens.markTokenUsed({ accountId: 'acc_other', mode: 'test' }, token.psp_token, h.clock.now())).toBe(false);
    });

    test('concurrent uses of one token at the store: exactly one wins', async () => {
      const payment = await createPayment(h);
      const token = await mint(h, payment);
      const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => h.store.transaction((tx) => tx.vaultTokens.markTokenUsed(scope, token.psp_token, h.clock.now()))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe(`[${engine}] psp_token confirm`, () => {
    test('4242424242424242 succeeds; the payment shows a card summary, never the number', async () => {
      const { payment } = await cardPayment(CARDS.success);
      expect(payment).toMatchObject({
        status: 'succeeded',
        amount_received: 10_000,
        payment_method: 'card',
        payment_method_type: 'credit',
        connector: 'card_simulator',
        payment_method_data: { card: { last4: '4242', card_network: 'Visa', exp_month: '12', exp_year: '2030' } },
      });
      expect(JSON.stringify(payment)).not.toContain(CARDS.success);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'succeeded', payment_method_data: payment.payment_method_data });
      expect(await events(h, payment.payment_id)).toEqual(['payment_succeeded']);
    });

    test('debit is accepted as payment_method_type', async () => {
      const payment = await createPayment(h);
      const token = await mint(h, payment);
      const response = await confirmWithToken(h, payment, token.psp_token, { payment_method_type: 'debit' });
      expect(await response.json()).toMatchObject({ status: 'succeeded', payment_method_type: 'debit' });
    });

    test('a secret-key confirm may use the token too', async () => {
      const payment = await createPayment(h);
      const token = await mint(h, payment);
      const response = await confirmWithToken(h, payment, token.psp_token, {}, h.secretKey);
      expect(await response.json()).toMatchObject({ status: 'succeeded' });
    });

    test('4000000000000002 is declined: failed with card_declined', async () => {
      const { payment } = await cardPayment(CARDS.declined);
      expect(payment).toMatchObject({ status: 'failed', error_code: 'card_declined', error_message: 'card_declined', payment_method_data: { card: { last4: '0002' } } });
      expect(await events(h, payment.payment_id)).toEqual(['payment_failed']);
    });

    test('any other number fails with card_not_supported', async () => {
      const { payment } = await cardPayment(CARDS.other);
      expect(payment).toMatchObject({ status: 'failed', error_code: 'card_not_supported', payment_method_data: { card: { last4: '4444', card_network: 'Mastercard' } } });
    });

    test('a used token cannot confirm again; an unknown token ERR_4010', async () => {
      const { payment, token } = await cardPayment(CARDS.declined);
      await expectError(await confirmWithToken(h, payment, token.psp_token), 'ERR_4003');
      const fresh = await createPayment(h);
      await expectError(await confirmWithToken(h, fresh, token.psp_token), 'ERR_4010', 'payment_method_data.psp_token');
      await expectError(await confirmWithToken(h, fresh, `tok_${'Z'.repeat(20)}`), 'ERR_4010');
      expect((await retrieve(h, fresh.payment_id)).status).toBe('requires_payment_method');
    });

    test('a token confirms only the payment it was minted for: ERR_4010, and it stays usable there', async () => {
      const a = await createPayment(h);
      const b = await createPayment(h);
      const token = await mint(h, a);
      await expectError(await confirmWithToken(h, b, token.psp_token), 'ERR_4010');
      expect((await rawToken(h, token.psp_token)).used_at).toBeNull();
      expect(await (await confirmWithToken(h, a, token.psp_token)).json()).toMatchObject({ status: 'succeeded' });
    });

    test('an expired token: ERR_4010 and the payment is unchanged', async () => {
      const payment = await createPayment(h, { session_expiry: 3600 });
      const token = await mint(h, payment);
      h.clock.advance(15 * 60_000);
      await expectError(await confirmWithToken(h, payment, token.psp_token, {}, h.secretKey), 'ERR_4010');
      expect((await retrieve(h, payment.payment_id)).status).toBe('requires_payment_method');
      expect((await rawToken(h, token.psp_token)).used_at).toBeNull();
    });

    test('create with confirm: true cannot use a token minted for another payment', async () => {
      const other = await createPayment(h);
      const token = await mint(h, other);
      const response = await request(h, 'POST', '/payments', {
        body: { amount: 10_000, currency: 'USD', confirm: true, payment_method: 'card', payment_method_data: { psp_token: token.psp_token } },
      });
      await expectError(response, 'ERR_4010');
    });

    test('20 concurrent confirms with one token: exactly one uses it', async () => {
      const payment = await createPayment(h);
      const token = await mint(h, payment);
      const responses = await Promise.all(Array.from({ length: 20 }, () => confirmWithToken(h, payment, token.psp_token)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200)) {
        const body = (await response.json()) as { error: { code: string } };
        expect(['ERR_4003', 'ERR_4010']).toContain(body.error.code);
      }
      expect(await events(h, payment.payment_id)).toEqual(['payment_succeeded']);
    });
  });

  describe(`[${engine}] 3DS simulator page`, () => {
    test('4000003800000446 asks for 3DS; "Complete authentication" succeeds and returns to return_url', async () => {
      const { payment } = await cardPayment(CARDS.threeDs, { return_url: 'https://shop.example/done?order=7' });
      expect(payment.status).toBe('requires_customer_action');
      expect(payment.next_action?.type).toBe('redirect_to_url');
      const url = payment.next_action?.type === 'redirect_to_url' ? payment.next_action.redirect_to_url : '';
      expect(url.startsWith(`${BASE_URL}/simulator/3ds/${payment.payment_id}?`)).toBe(true);

      const page = await h.app.request(new URL(url).pathname + new URL(url).search);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('content-security-policy')).toContain('form-action \'self\' https://shop.example');
      const html = await page.text();
      expect(html).toContain('Complete authentication');
      expect(html).toContain('Fail authentication');
      expect(html).not.toMatch(/<script|<link|src=/i);
      expect(html).toContain('Card ending 0446');

      const done = await submitSimulatorPage(url, 'complete');
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`https://shop.example/done?order=7&payment_id=${payment.payment_id}&status=succeeded`);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 10_000, next_action: null });
      expect(await events(h, payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      // The link is spent.
      const again = await h.app.request(new URL(url).pathname + new URL(url).search);
      await expectError(again, 'ERR_4070');
    });

    test('"Fail authentication" fails the payment; without return_url a result page is shown', async () => {
      const { payment } = await cardPayment(CARDS.threeDs);
      const url = payment.next_action?.type === 'redirect_to_url' ? payment.next_action.redirect_to_url : '';
      const done = await submitSimulatorPage(url, 'fail');
      expect(done.status).toBe(200);
      expect(await done.text()).toContain('failed');
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'authentication_failed' });
      expect(await events(h, payment.payment_id)).toEqual(['action_required', 'payment_failed']);
    });

    test('a wrong challenge or account, or a bad decision, is refused and changes nothing', async () => {
      const { payment } = await cardPayment(CARDS.threeDs);
      const url = new URL(payment.next_action?.type === 'redirect_to_url' ? payment.next_action.redirect_to_url : '');
      const wrong = new URL(url);
      wrong.searchParams.set('challenge', 'x'.repeat(24));
      await expectError(await h.app.request(wrong.pathname + wrong.search), 'ERR_4070');
      wrong.searchParams.set('challenge', url.searchParams.get('challenge') ?? '');
      wrong.searchParams.set('account', 'acc_other');
      await expectError(await h.app.request(wrong.pathname + wrong.search), 'ERR_4070');
      const post = (body: Record<string, string>) =>
        h.app.request(url.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
      await expectError(await post({ account: url.searchParams.get('account') ?? '', challenge: 'nope', decision: 'complete' }), 'ERR_4070');
      await expectError(await post({ account: url.searchParams.get('account') ?? '', challenge: url.searchParams.get('challenge') ?? '', decision: 'maybe' }), 'ERR_2003', 'decision');
      // The crypto page does not act on a card payment.
      await expectError(await h.app.request(`/simulator/crypto/${payment.payment_id}${url.search}`), 'ERR_4070');
      expect((await retrieve(h, payment.payment_id)).status).toBe('requires_customer_action');
    });
  });

  describe(`[${engine}] crypto simulator`, () => {
    const cryptoConfirm = (payment: PaymentResponse, crypto: Json) =>
      request(h, 'POST', `/payments/${payment.payment_id}/confirm`, {
        body: { payment_method: 'crypto', payment_method_type: 'crypto_currency', payment_method_data: { crypto } },
      });

    test('USDC: crypto_payment_information; "Pay" on the hosted page succeeds', async () => {
      const payment = await createPayment(h, { return_url: 'https://shop.example/back' });
      const confirmed = (await (await cryptoConfirm(payment, { pay_currency: 'USDC' })).json()) as PaymentResponse;
      expect(confirmed).toMatchObject({
        status: 'requires_customer_action',
        payment_method: 'crypto',
        payment_method_type: 'crypto_currency',
        next_action: { type: 'crypto_payment_information', network: 'ethereum', pay_currency: 'USDC', pay_amount: '100.000000' },
      });
      const next = confirmed.next_action?.type === 'crypto_payment_information' ? confirmed.next_action : undefined;
      expect(next?.wallet_address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(next?.hosted_page_url.startsWith(`${BASE_URL}/simulator/crypto/${payment.payment_id}?`)).toBe(true);
      const done = await submitSimulatorPage(next?.hosted_page_url ?? '', 'complete');
      expect(done.headers.get('location')).toBe(`https://shop.example/back?payment_id=${payment.payment_id}&status=succeeded`);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 10_000 });
      expect(await events(h, payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
    });

    test('BTC on EUR uses the simulated rate; "Expire" fails the payment', async () => {
      const payment = await createPayment(h, { currency: 'EUR', amount: 6_000_000 });
      const confirmed = (await (await cryptoConfirm(payment, { pay_currency: 'btc' })).json()) as PaymentResponse;
      expect(confirmed.next_action).toMatchObject({ pay_currency: 'BTC', network: 'bitcoin', pay_amount: '1.08000000' });
      const next = confirmed.next_action?.type === 'crypto_payment_information' ? confirmed.next_action : undefined;
      await submitSimulatorPage(next?.hosted_page_url ?? '', 'fail');
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'crypto_payment_expired' });
    });

    test('an unpaid deposit address expires on the first read after 15 minutes', async () => {
      const payment = await createPayment(h, { currency: 'GBP' });
      await cryptoConfirm(payment, { pay_currency: 'USDT', network: 'tron' });
      h.clock.advance(CRYPTO_VALIDITY_MS - 1);
      expect((await retrieve(h, payment.payment_id)).status).toBe('requires_customer_action');
      h.clock.advance(1);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'crypto_payment_expired' });
    });

    test.each<[Json, string]>([
      [{ pay_currency: 'DOGE' }, 'crypto_currency_not_supported'],
      [{ pay_currency: 'BTC', network: 'ethereum' }, 'crypto_network_not_supported'],
    ])('%o fails at confirm with %s', async (crypto, code) => {
      const payment = await createPayment(h);
      expect(await (await cryptoConfirm(payment, crypto)).json()).toMatchObject({ status: 'failed', error_code: code });
    });

    test('an unknown field in payment_method_data.crypto: ERR_2004', async () => {
      const payment = await createPayment(h);
      await expectError(await cryptoConfirm(payment, { pay_currency: 'USDC', colour: 'red' }), 'ERR_2004', 'payment_method_data.crypto.colour');
    });

    test('the default account pays crypto in test mode (the spec: the simulator answers crypto everywhere) and lists it', async () => {
      const payment = await createPayment(plain);
      const response = await request(plain, 'POST', `/payments/${payment.payment_id}/confirm`, { body: { payment_method_data: { crypto: { pay_currency: 'USDC' } } } });
      expect(((await response.json()) as PaymentResponse).status).toBe('requires_customer_action');
      const list = await request(plain, 'GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: plain.publishableKey });
      const methods = ((await list.json()) as { payment_methods: { payment_method: string }[] }).payment_methods;
      expect(methods.map((method) => method.payment_method)).toEqual(['crypto']);
    });
  });

  describe(`[${engine}] bank transfer / mobile money simulator`, () => {
    const confirmBank = (payment: PaymentResponse, body: Json) => request(h, 'POST', `/payments/${payment.payment_id}/confirm`, { body });

    test('local bank transfer: instructions, then succeeded 30 s later on read', async () => {
      const payment = await createPayment(h, { currency: 'KES', amount: 150_000 });
      const confirmed = (await (
        await confirmBank(payment, { payment_method: 'bank_transfer', payment_method_type: 'local_bank_transfer', payment_method_data: { bank_transfer: { local_bank_transfer: {} } } })
      ).json()) as PaymentResponse;
      expect(confirmed).toMatchObject({
        status: 'requires_customer_action',
        payment_method: 'bank_transfer',
        payment_method_type: 'local_bank_transfer',
        next_action: {
          type: 'display_bank_transfer_information',
          bank_transfer_steps_and_charges_details: { type: 'local_bank_transfer', amount: 150_000, currency: 'KES', receiver: { bank_name: 'Rail Simulator Bank' } },
        },
      });
      h.clock.advance(BANK_TRANSFER_RESOLVE_AFTER_MS - 1);
      expect((await retrieve(h, payment.payment_id)).status).toBe('requires_customer_action');
      h.clock.advance(1);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 150_000 });
      expect(await events(h, payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
    });

    test('bank_code SIM_FAIL: failed with bank_transfer_expired', async () => {
      const payment = await createPayment(h, { currency: 'GHS' });
      await confirmBank(payment, { payment_method_data: { bank_transfer: { local_bank_transfer: { bank_code: 'SIM_FAIL' } } } });
      h.clock.advance(BANK_TRANSFER_RESOLVE_AFTER_MS);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'failed', error_code: 'bank_transfer_expired' });
    });

    test('mobile money (mobile_payment / momo) succeeds; an msisdn ending in 0002 is rejected', async () => {
      const ok = await createPayment(h, { currency: 'UGX', amount: 50_000 });
      const confirmed = (await (
        await confirmBank(ok, { payment_method: 'mobile_payment', payment_method_type: 'momo', payment_method_data: { mobile_payment: { momo: { msisdn: '+256700000001' } } } })
      ).json()) as PaymentResponse;
      expect(confirmed).toMatchObject({
        status: 'requires_customer_action',
        payment_method: 'mobile_payment',
        payment_method_type: 'momo',
        next_action: { type: 'display_bank_transfer_information', bank_transfer_steps_and_charges_details: { type: 'mobile_money', amount: 50_000, currency: 'UGX' } },
      });
      const rejected = await createPayment(h, { currency: 'TZS' });
      await confirmBank(rejected, { payment_method_data: { mobile_payment: { momo: { msisdn: '+255700000002' } } } });
      h.clock.advance(BANK_TRANSFER_RESOLVE_AFTER_MS);
      expect((await retrieve(h, ok.payment_id)).status).toBe('succeeded');
      expect(await retrieve(h, rejected.payment_id)).toMatchObject({ status: 'failed', error_code: 'mobile_money_rejected' });
    });

    const simulatorUrl = (payment: PaymentResponse): string => {
      const next = payment.next_action;
      const url = next?.type === 'display_bank_transfer_information' ? next.bank_transfer_steps_and_charges_details['simulator_url'] : undefined;
      return typeof url === 'string' ? url : '';
    };
    const momo = (msisdn: unknown) => ({ payment_method: 'mobile_payment', payment_method_type: 'momo', payment_method_data: { mobile_payment: { momo: { msisdn } } } });

    test('"Receive payment" on the simulator page succeeds a bank transfer at once, with its event and the return_url redirect', async () => {
      const payment = await createPayment(h, { currency: 'KES', amount: 150_000, return_url: 'https://shop.example/back' });
      const confirmed = (await (await confirmBank(payment, { payment_method: 'bank_transfer', payment_method_data: { bank_transfer: { local_bank_transfer: {} } } })).json()) as PaymentResponse;
      expect(simulatorUrl(confirmed).startsWith(`${BASE_URL}/simulator/bank_transfer/${payment.payment_id}?`)).toBe(true);
      const page = await h.app.request(new URL(simulatorUrl(confirmed)).pathname + new URL(simulatorUrl(confirmed)).search);
      const html = await page.text();
      expect(html).toContain('Receive payment');
      expect(html).toContain('Fail payment');
      const details = confirmed.next_action?.type === 'display_bank_transfer_information' ? confirmed.next_action.bank_transfer_steps_and_charges_details : {};
      expect(html).toContain(`Bank transfer with reference <code>${String(details['reference'])}</code>`);
      expect(html).not.toMatch(/<script|<link|src=/i);
      const done = await submitSimulatorPage(simulatorUrl(confirmed), 'complete');
      expect(done.headers.get('location')).toBe(`https://shop.example/back?payment_id=${payment.payment_id}&status=succeeded`);
      expect(await retrieve(h, payment.payment_id)).toMatchObject({ status: 'succeeded', amount_received: 150_000, next_action: null });
      expect(await events(h, payment.payment_id)).toEqual(['action_required', 'payment_succeeded']);
      // Answered once: the page no longer applies.
      const answered = new URL(simulatorUrl(confirmed));
      await expectError(await h.app.request(answered.pathname + answered.search), 'ERR_4070');
    });

    test('"Fail payment" fails a bank transfer (bank_transfer_expired) and a mobile money payment (mobile_money_rejected)', async () => {
      const bank = await createPayment(h, { currency: 'GHS' });
      const bankConfirmed = (await (await confirmBank(bank, { payment_method_data: { bank_transfer: { local_bank_transfer: {} } } })).json()) as PaymentResponse;
      await submitSimulatorPage(simulatorUrl(bankConfirmed), 'fail');
      expect(await retrieve(h, bank.payment_id)).toMatchObject({ status: 'failed', error_code: 'bank_transfer_expired' });
      expect(await events(h, bank.payment_id)).toEqual(['action_required', 'payment_failed']);

      const mobile = await createPayment(h, { currency: 'UGX' });
      const mobileConfirmed = (await (await confirmBank(mobile, momo('+256700000001'))).json()) as PaymentResponse;
      const page = new URL(simulatorUrl(mobileConfirmed));
      expect(await (await h.app.request(page.pathname + page.search)).text()).toContain('Mobile money with reference');
      await submitSimulatorPage(simulatorUrl(mobileConfirmed), 'fail');
      expect(await retrieve(h, mobile.payment_id)).toMatchObject({ status: 'failed', error_code: 'mobile_money_rejected' });
    });

    test('the page overrides the scripted outcome: "Receive payment" succeeds a mobile money payment to a 0002 number', async () => {
      const payment = await createPayment(h, { currency: 'TZS' });
      const confirmed = (await (await confirmBank(payment, momo('+255700000002'))).json()) as PaymentResponse;
      await submitSimulatorPage(simulatorUrl(confirmed), 'complete');
      expect((await retrieve(h, payment.payment_id)).status).toBe('succeeded');
    });

    test('the bank transfer page does not act on another rail, a wrong challenge or expired instructions', async () => {
      const payment = await createPayment(h, { currency: 'KES' });
      const url = new URL(simulatorUrl((await (await confirmBank(payment, { payment_method_data: { bank_transfer: { local_bank_transfer: {} } } })).json()) as PaymentResponse));
      await expectError(await h.app.request(`/simulator/crypto/${payment.payment_id}${url.search}`), 'ERR_4070');
      const wrong = new URL(url);
      wrong.searchParams.set('challenge', 'x'.repeat(24));
      await expectError(await h.app.request(wrong.pathname + wrong.search), 'ERR_4070');
      // After 24 hours the instructions have lapsed: "Receive payment" no longer pays; the scripted outcome stands.
      h.clock.advance(24 * 60 * 60_000);
      const lapsed = await createPayment(h, { currency: 'KES' });
      const lapsedUrl = simulatorUrl((await (await confirmBank(lapsed, { payment_method_data: { bank_transfer: { local_bank_transfer: { bank_code: 'SIM_FAIL' } } } })).json()) as PaymentResponse);
      const page = new URL(lapsedUrl);
      const html = await (await h.app.request(page.pathname + page.search)).text();
      h.clock.advance(24 * 60 * 60_000);
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
      await h.app.request(page.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ account: field('account'), challenge: field('challenge'), decision: 'complete' }).toString(),
      });
      expect(await retrieve(h, lapsed.payment_id)).toMatchObject({ status: 'failed', error_code: 'bank_transfer_expired' });
    });

    test('mobile money needs the payer\'s number: missing ERR_2001, malformed ERR_2003, both naming the field', async () => {
      const field = 'payment_method_data.mobile_payment.momo.msisdn';
      const payment = await createPayment(h, { currency: 'KES' });
      await expectError(await confirmBank(payment, { payment_method_data: { mobile_payment: { momo: {} } } }), 'ERR_2001', field);
      for (const msisdn of ['0712', '07123456789012345', '+254 712 345 678', 'abcdefghij', 712345678]) {
        await expectError(await confirmBank(payment, momo(msisdn)), 'ERR_2003', field);
      }
      await expectError(await confirmBank(payment, { payment_method_data: { mobile_payment: { momo: { msisdn: '0712345678', pin: '1234' } } } }), 'ERR_2004', 'payment_method_data.mobile_payment.momo.pin');
      expect((await retrieve(h, payment.payment_id)).status).toBe('requires_payment_method');
      expect((await (await confirmBank(payment, momo('0712345678'))).json()) as PaymentResponse).toMatchObject({ status: 'requires_customer_action' });
    });

    test('the default account answers ERR_3010 (ready to switch on)', async () => {
      const payment = await createPayment(plain, { currency: 'KES' });
      const response = await request(plain, 'POST', `/payments/${payment.payment_id}/confirm`, { body: { payment_method_data: { bank_transfer: { local_bank_transfer: {} } } } });
      await expectError(response, 'ERR_3010');
    });
  });

  describe(`[${engine}] GET /account/payment_methods with every rail on`, () => {
    const list = async (payment: PaymentResponse) => {
      const response = await request(h, 'GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey });
      expect(response.status).toBe(200);
      return (await response.json()) as { payment_methods: { payment_method: string; payment_method_types: { payment_method_type: string; card_networks: Json[] | null }[] }[] };
    };

    test('USD: card (credit, debit, with networks), the simulated acquirer\'s wallets, and crypto', async () => {
      const body = await list(await createPayment(h));
      expect(body.payment_methods.map((entry) => entry.payment_method)).toEqual(['card', 'wallet', 'crypto']);
      const card = body.payment_methods[0];
      expect(card?.payment_method_types.map((entry) => entry.payment_method_type)).toEqual(['credit', 'debit']);
      expect(card?.payment_method_types[0]?.card_networks).toEqual(
        expect.arrayContaining([{ card_network: 'Visa', surcharge_details: null, eligible_connectors: ['card_simulator'] }]),
      );
      expect(body.payment_methods[1]?.payment_method_types.map((entry) => entry.payment_method_type)).toEqual(['google_pay', 'apple_pay', 'paypal']);
      expect(body.payment_methods[2]?.payment_method_types).toEqual([expect.objectContaining({ payment_method_type: 'crypto_currency', card_networks: null })]);
    });

    test('KES: bank transfer and mobile money; INR: UPI, card and wallets', async () => {
      const kes = await list(await createPayment(h, { currency: 'KES' }));
      expect(kes.payment_methods.map((entry) => [entry.payment_method, entry.payment_method_types.map((t) => t.payment_method_type)])).toEqual([
        ['bank_transfer', ['local_bank_transfer']],
        ['mobile_payment', ['momo']],
      ]);
      // Mobile money asks the checkout for the payer's number (Hyperswitch required_fields).
      expect(kes.payment_methods[1]?.payment_method_types[0]).toMatchObject({
        required_fields: { 'payment_method_data.mobile_payment.momo.msisdn': { field_type: 'user_msisdn', display_name: 'msisdn', value: null } },
      });
      const inr = await list(await createPayment(h, { currency: 'INR' }));
      expect(inr.payment_methods.map((entry) => entry.payment_method)).toEqual(['upi', 'card', 'wallet']);
    });

    test('allowed_payment_method_types narrows the list', async () => {
      const body = await list(await createPayment(h, { allowed_payment_method_types: ['debit'] }));
      expect(body.payment_methods).toEqual([expect.objectContaining({ payment_method: 'card', payment_method_types: [expect.objectContaining({ payment_method_type: 'debit' })] })]);
    });
  });

  describe(`[${engine}] no card number or CVC outside the vault ciphertext`, () => {
    test('every text column of every table, after card flows: no Luhn-valid 13-19 digit run, no PAN, no CVC', async () => {
      await cardPayment(CARDS.success);
      await cardPayment(CARDS.declined);
      const threeDs = await cardPayment(CARDS.threeDs, { return_url: 'https://shop.example/r' });
      const url = threeDs.payment.next_action?.type === 'redirect_to_url' ? threeDs.payment.next_action.redirect_to_url : '';
      await submitSimulatorPage(url, 'complete');
      // One token minted and never used: its CVC ciphertext exists, but only as ciphertext.
      await mint(h, await createPayment(h));

      const tables =
        engine === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(h.db)).rows.map((row) => row.name)
          : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(h.db)).rows.map((row) => row.name);
      expect(tables).toEqual(expect.arrayContaining(['payments', 'vault_tokens', 'webhook_events']));
      const offenders: string[] = [];
      let scanned = 0;
      for (const table of tables) {
        const rows = (await sql<Json>`select * from ${sql.table(table)}`.execute(h.db)).rows;
        for (const row of rows) {
          for (const [column, value] of Object.entries(row)) {
            if (typeof value !== 'string') continue;
            if (table === 'vault_tokens' && (column === 'card_ciphertext' || column === 'cvc_ciphertext')) continue;
            scanned += 1;
            // A SHA-256 hex digest (key and token hashes) holds no card data, but about one in 250 holds a Luhn-valid
            // run of 13+ digits by chance: the check would fail at random on it.
            if (/^[0-9a-f]{64}$/.test(value)) continue;
            for (const run of value.match(/\d{13,19}/g) ?? []) {
              if (passesLuhn(run)) offenders.push(`${table}.${column}: Luhn-valid digit run`);
            }
            for (const pan of Object.values(CARDS)) if (value.includes(pan)) offenders.push(`${table}.${column}: a test PAN`);
            if (value.includes(`"${CVC}"`) || value.includes(`:${CVC}`)) offenders.push(`${table}.${column}: the CVC`);
          }
        }
      }
      expect(scanned).toBeGreaterThan(100);
      expect(offenders).toEqual([]);
    });

    test('log output of vault calls and confirms holds no card number and no CVC', async () => {
      logLines.length = 0;
      await cardPayment(CARDS.success);
      const payment = await createPayment(h);
      await tokenize(h, cardBody(payment.client_secret, { card_number: '4242424242424241' }));
      await tokenize(h, cardBody(payment.client_secret), { origin: 'https://evil.example' });
      const log = logLines.join('');
      expect(log).toContain('/vault/tokens');
      expect(log).not.toMatch(/\d{13,19}/);
      expect(log).not.toContain(`"${CVC}"`);
      expect(log).not.toContain('Ada Lovelace');
    });
  });
});
