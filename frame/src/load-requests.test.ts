import { describe, expect, test, vi } from 'vitest';
import { createApiClient } from './api-client';
import { loadPaths, startLoadRequests, withPrefetched } from './load-requests';
import { CONFIG } from './test-utils';

const PAYMENT = { payment_id: 'pay_abc123', status: 'requires_payment_method', amount: 100, currency: 'INR' };
const METHODS = { payment_methods: [] };

describe('load requests started by the boot script', () => {
  test('start the payment and methods GETs at once, with the headers the API client sends', () => {
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response('{}'));
    const prefetched = startLoadRequests(CONFIG, fetch);
    const paths = loadPaths(CONFIG.clientSecret);
    expect([...prefetched.keys()].sort()).toEqual([CONFIG.apiBaseUrl + paths.methods, CONFIG.apiBaseUrl + paths.payment].sort());
    expect(fetch.mock.calls.map(([, init]) => init)).toEqual([
      { headers: { 'api-key': CONFIG.publishableKey } },
      { headers: { 'api-key': CONFIG.publishableKey } },
    ]);
  });

  test("the API client's load takes the started responses, once; later calls fetch again", async () => {
    const early = vi.fn<typeof globalThis.fetch>(async (input) =>
      new Response(JSON.stringify(String(input).includes('/account/') ? METHODS : PAYMENT)),
    );
    const late = vi.fn<typeof globalThis.fetch>(async (input) =>
      new Response(JSON.stringify(String(input).includes('/account/') ? METHODS : { ...PAYMENT, status: 'succeeded' })),
    );
    const api = createApiClient(withPrefetched(startLoadRequests(CONFIG, early), late), CONFIG);
    const [methods, payment] = await Promise.all([api.listPaymentMethods(), api.retrievePayment()]);
    expect(methods).toEqual({ ok: true, value: METHODS });
    expect(payment).toEqual({ ok: true, value: PAYMENT });
    expect(late).not.toHaveBeenCalled();
    expect(await api.retrievePayment()).toEqual({ ok: true, value: { ...PAYMENT, status: 'succeeded' } });
    expect(late).toHaveBeenCalledTimes(1);
  });

  test('a started request that failed is reported by its taker as a network error (ERR_6004), with no unhandled rejection', async () => {
    const early = vi.fn<typeof globalThis.fetch>(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = createApiClient(withPrefetched(startLoadRequests(CONFIG, early), vi.fn()), CONFIG);
    const payment = await api.retrievePayment();
    expect(payment.ok).toBe(false);
    expect(!payment.ok && payment.error.code).toBe('ERR_6004');
  });

  test('another URL, or a POST to a started URL, is fetched normally', async () => {
    const started = Promise.resolve(new Response('"started"'));
    const url = CONFIG.apiBaseUrl + loadPaths(CONFIG.clientSecret).payment;
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response('"fetched"'));
    const wrapped = withPrefetched(new Map([[url, started]]), fetch);
    expect(await (await wrapped(url, { method: 'POST' })).json()).toBe('fetched');
    expect(await (await wrapped(CONFIG.apiBaseUrl + '/other')).json()).toBe('fetched');
    expect(await (await wrapped(url)).json()).toBe('started');
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(withPrefetched(undefined, fetch)).toBeTypeOf('function');
  });
});
