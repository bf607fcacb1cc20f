/**
 * A publishable key is public, so what it is answered about a payment must not tell which payment ids exist: an
 * unknown payment, a payment of another account or of another mode, and a known payment with another client_secret
 * get one answer (ERR_1005, docs/security.md), and so does a request without a client_secret (ERR_2001) whether the
 * payment exists or not. Both ERR_1005 answers take the same work: the client_secret sent is compared, in constant
 * time, with the payment's own or with a stand-in of its length (counted with a spy on secretsEqual, never timed).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { DEFAULT_KEY_SCOPES } from '../../../protocol/api/keys';
import { keyPrefix } from '../core/accounts/bootstrap';
import { hashSecret } from '../core/auth/secrets';
import { secretsEqual } from '../kernel/constant-time';
import { apiRequest, expectOk } from '../test-support/api-assertions';
import { createHarness, type Harness } from '../test-support/harness';

vi.mock('../kernel/constant-time', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../kernel/constant-time')>();
  return { ...actual, secretsEqual: vi.fn(actual.secretsEqual) };
});

/** The lengths of the secrets `given` was compared with since the last call, and the record cleared. */
function comparedWith(given: string): number[] {
  const lengths = vi.mocked(secretsEqual).mock.calls.filter(([sent]) => sent === given).map(([, expected]) => expected.length);
  vi.mocked(secretsEqual).mockClear();
  return lengths;
}

const UPI = { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } };
const UNKNOWN_PAYMENT = 'pay_noSuchPaymentAnywhere0';

describe('a publishable key cannot tell an unknown payment from a wrong client_secret', () => {
  let h: Harness;
  let otherAccountKey: string;
  let liveKey: string;

  /** A publishable key of `accountId` in `mode`, stored as key management stores one. */
  async function insertPublishableKey(accountId: string, mode: 'test' | 'live', fill: string): Promise<string> {
    const key = `rail_open_${mode}_${fill.repeat(40)}`;
    await h.store.apiKeys.insertApiKey({
      keyId: `key_probe${fill.repeat(12)}`,
      accountId,
      mode,
      keyType: 'open',
      name: 'probe',
      prefix: keyPrefix(key),
      keyHash: hashSecret(key),
      createdAt: h.clock.now(),
      revokedAt: null,
      expiresAt: null,
      scopes: DEFAULT_KEY_SCOPES,
      replacesKeyId: null,
    });
    return key;
  }

  beforeAll(async () => {
    h = await createHarness('sqlite');
    await h.store.accounts.insertAccount({ accountId: 'acc_otherMerchant0000000', slug: 'other', name: 'Other', settings: h.boot.account.settings, createdAt: h.clock.now() });
    otherAccountKey = await insertPublishableKey('acc_otherMerchant0000000', 'test', 'o');
    liveKey = await insertPublishableKey(h.boot.account.accountId, 'live', 'l');
  });
  afterAll(async () => h?.close());

  const newPayment = async () =>
    expectOk<{ payment_id: string; client_secret: string }>(await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR', customer_id: 'cus_probe' } }));

  /** Each operation a publishable key calls about a payment, as a request for a payment id and a client_secret. */
  const operations: Record<string, (paymentId: string, clientSecret: string | undefined) => [string, string, Record<string, unknown>?, Record<string, string>?]> = {
    retrieve: (id, cs) => ['GET', `/payments/${id}${cs === undefined ? '' : `?client_secret=${cs}`}`],
    update: (id, cs) => ['POST', `/payments/${id}`, { client_secret: cs, description: 'probe' }],
    confirm: (id, cs) => ['POST', `/payments/${id}/confirm`, { client_secret: cs, ...UPI }],
    eligibility: (id, cs) => ['POST', `/payments/${id}/eligibility`, { client_secret: cs, payment_method_type: 'upi', payment_method_data: UPI.payment_method_data }],
    session_tokens: (id, cs) => ['POST', '/payments/session_tokens', { payment_id: id, client_secret: cs, wallets: ['google_pay'] }],
    three_ds_authentication: (id, cs) => ['POST', `/payments/${id}/3ds/authentication`, { client_secret: cs, device_channel: 'BRW', threeds_method_comp_ind: 'N' }],
    complete_authorize: (id, cs) => ['POST', `/payments/${id}/complete_authorize`, { client_secret: cs }],
    post_session_tokens: (id, cs) => ['POST', `/payments/${id}/post_session_tokens`, { client_secret: cs, payment_method: 'wallet', payment_method_type: 'paypal' }],
    poll_status: (id, cs) => ['GET', `/poll/status/poll_${id}${cs === undefined ? '' : `?client_secret=${cs}`}`],
    account_payment_methods: (_id, cs) => ['GET', `/account/payment_methods${cs === undefined ? '' : `?client_secret=${cs}`}`],
    customer_payment_methods: (_id, cs) => ['GET', `/customers/payment_methods${cs === undefined ? '' : `?client_secret=${cs}`}`],
    payment_method_update: (_id, cs) => ['POST', '/payment_methods/pm_noSuchMethod00000000/update', { client_secret: cs, wallet: {} }],
    vault_tokens: (_id, cs) => [
      'POST',
      '/vault/tokens',
      { client_secret: cs, card_number: '4242424242424242', card_exp_month: '12', card_exp_year: '2030', card_cvc: '123' },
      { origin: 'http://127.0.0.1:8081' },
    ],
  };

  async function answer(key: string, [method, path, body, headers]: [string, string, Record<string, unknown>?, Record<string, string>?]) {
    const response = await apiRequest(h, method, path, { key, ...(body ? { body } : {}), ...(headers ? { headers } : {}) });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  test.each(Object.keys(operations))('%s: unknown payment, another account, another mode and a wrong client_secret answer alike (ERR_1005)', async (name) => {
    const request = operations[name]!;
    const payment = await newPayment();
    vi.mocked(secretsEqual).mockClear();
    const wrong = `${payment.payment_id}_secret_${'W'.repeat(20)}`;
    const wrongSecret = await answer(h.publishableKey, request(payment.payment_id, wrong));
    expect(wrongSecret.body).toEqual({ error: { type: 'invalid_request', code: 'ERR_1005', message: 'client_secret does not belong to this payment.', field_name: 'client_secret' } });
    expect(comparedWith(wrong)).toEqual([payment.client_secret.length]);
    const ofUnknown = `${UNKNOWN_PAYMENT}_secret_${'W'.repeat(20)}`;
    expect(await answer(h.publishableKey, request(UNKNOWN_PAYMENT, ofUnknown))).toEqual(wrongSecret);
    expect(comparedWith(ofUnknown)).toEqual([ofUnknown.length]);
    expect(await answer(otherAccountKey, request(payment.payment_id, payment.client_secret))).toEqual(wrongSecret);
    expect(comparedWith(payment.client_secret)).toEqual([payment.client_secret.length]);
    expect(await answer(liveKey, request(payment.payment_id, payment.client_secret))).toEqual(wrongSecret);
    expect(comparedWith(payment.client_secret)).toEqual([payment.client_secret.length]);
  });

  test("a payment method update with a payment's own client_secret: another customer's method and an unknown one answer alike (ERR_4100)", async () => {
    await expectOk(await apiRequest(h, 'POST', '/customers', { body: { customer_id: 'cus_someoneElse' } }));
    const method = await expectOk<{ payment_method_id: string }>(
      await apiRequest(h, 'POST', '/payment_methods', { body: { payment_method: 'upi', payment_method_type: 'upi_collect', customer_id: 'cus_someoneElse' } }),
    );
    const payment = await newPayment();
    const update = (methodId: string) => answer(h.publishableKey, ['POST', `/payment_methods/${methodId}/update`, { client_secret: payment.client_secret, wallet: {} }]);
    const othersMethod = await update(method.payment_method_id);
    expect(othersMethod.body).toMatchObject({ error: { code: 'ERR_4100' } });
    expect(await update('pm_noSuchMethod00000000')).toEqual(othersMethod);
  });

  test.each(Object.keys(operations))('%s: without a client_secret, an unknown payment and a known one answer alike (ERR_2001)', async (name) => {
    const request = operations[name]!;
    const payment = await newPayment();
    const known = await answer(h.publishableKey, request(payment.payment_id, undefined));
    expect(known.body).toMatchObject({ error: { code: 'ERR_2001', field_name: 'client_secret' } });
    expect(await answer(h.publishableKey, request(UNKNOWN_PAYMENT, undefined))).toEqual(known);
  });
});
