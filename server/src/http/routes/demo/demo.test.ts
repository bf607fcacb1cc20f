import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { demoKey } from '../../../core/accounts/ensure-demo-account';
import { apiRequest, expectApiErrorResponse, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { writeDemoPage } from '../../../test-support/fixtures';
import { createHarness, type Harness } from '../../../test-support/harness';

interface MethodList {
  payment_methods: { payment_method: string; payment_method_types: { payment_method_type: string }[] }[];
}

const methodTypes = (list: MethodList) => list.payment_methods.flatMap((method) => method.payment_method_types.map((type) => type.payment_method_type)).sort();

forEachEngine('demo checkout', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine, { demoPagePaths: [writeDemoPage()] });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The methods the payment element of a demo payment in `currency` offers (what the frame asks). */
  async function demoMethods(currency?: string): Promise<{ payment: { payment_id: string; client_secret: string }; types: string[] }> {
    const payment = await expectOk<{ payment_id: string; client_secret: string }>(await apiRequest(h, 'POST', '/demo/payments', { key: null, ...(currency ? { body: { currency } } : { raw: '' }) }));
    const list = await expectOk<MethodList>(await apiRequest(h, 'GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: demoKey(h.secretKey, 'open') }));
    return { payment, types: methodTypes(list) };
  }

  test('GET /demo serves demo/index.html with the js_url and the demo account publishable key written in', async () => {
    const response = await h.app.request('/demo');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('src="http://127.0.0.1:8081/v1/"');
    expect(html).toContain(`Rail("${demoKey(h.secretKey, 'open')}")`);
    expect(html).not.toContain(h.publishableKey);
    expect(html).not.toContain('__RAIL_');
  });

  test('demo payments live on the demo account, which offers every simulated method by currency', async () => {
    // The simulated card acquirer also offers its test wallets (docs/simulator.md).
    expect((await demoMethods()).types).toEqual(['apple_pay', 'credit', 'debit', 'google_pay', 'paypal', 'upi_collect', 'upi_intent', 'upi_qr']);
    expect((await demoMethods('EUR')).types).toEqual(['apple_pay', 'credit', 'crypto_currency', 'debit', 'google_pay', 'paypal']);
    expect((await demoMethods('KES')).types).toEqual(['local_bank_transfer', 'momo']);
    const { payment } = await demoMethods('INR');
    // Not the default account's payment: its keys cannot read it.
    await expectApiErrorResponse(await apiRequest(h, 'GET', `/payments/${payment.payment_id}`), 'ERR_4001');
    const read = await expectOk<{ amount: number; currency: string }>(await apiRequest(h, 'GET', `/payments/${payment.payment_id}`, { key: demoKey(h.secretKey, 'full') }));
    expect([read.amount, read.currency]).toEqual([10_000, 'INR']);
  });

  test("the default account keeps the spec's methods", async () => {
    const payment = await expectOk<{ client_secret: string }>(await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } }));
    const list = await expectOk<MethodList>(await apiRequest(h, 'GET', `/account/payment_methods?client_secret=${payment.client_secret}`, { key: h.publishableKey }));
    expect(methodTypes(list)).toEqual(['upi_collect', 'upi_intent', 'upi_qr']);
  });

  test('the demo account takes test payments only and is created once', async () => {
    await demoMethods();
    const account = await h.store.accounts.findAccountBySlug('demo');
    expect(account?.settings.rails.every((rail) => rail.modes.join() === 'test')).toBe(true);
    const keys = await h.db.selectFrom('api_keys').select(['mode']).where('account_id', '=', account!.accountId).execute();
    expect(keys.map((key) => key.mode)).toEqual(['test', 'test']);
  });

  test('a currency the demo does not take, or a body that is not JSON, answers ERR_2003 and creates nothing', async () => {
    const account = await h.store.accounts.findAccountBySlug('demo');
    const count = async () => (await h.db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', account!.accountId).executeTakeFirstOrThrow()).n;
    const before = Number(await count());
    await expectApiErrorResponse(await apiRequest(h, 'POST', '/demo/payments', { key: null, body: { currency: 'USD' } }), 'ERR_2003', 'currency');
    await expectApiErrorResponse(await apiRequest(h, 'POST', '/demo/payments', { key: null, body: { currency: 'INR', amount: 1 } }), 'ERR_2003', 'currency');
    await expectApiErrorResponse(await apiRequest(h, 'POST', '/demo/payments', { key: null, raw: '{"currency":' }), 'ERR_2003');
    expect(Number(await count())).toBe(before);
  });
});

describe('demo keys', () => {
  test('are test keys of the shape the API takes, derived from the default key and differing by type', () => {
    const seed = 'rail_full_test_e2eSecretKey0000000000000000000000001';
    expect(demoKey(seed, 'full')).toMatch(/^rail_full_test_[0-9A-Za-z]{40}$/);
    expect(demoKey(seed, 'open')).toMatch(/^rail_open_test_[0-9A-Za-z]{40}$/);
    expect(demoKey(seed, 'open')).toBe(demoKey(seed, 'open'));
    expect(demoKey(seed, 'open').slice(15)).not.toBe(demoKey(seed, 'full').slice(15));
    expect(demoKey(`${seed}2`, 'open')).not.toBe(demoKey(seed, 'open'));
  });
});
