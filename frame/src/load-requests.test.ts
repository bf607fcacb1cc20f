import { describe, expect, test, vi } from 'vitest';
import { createApiClient } from './api-client';
import { EARLY_LOAD_KEY, loadUrl, startLoadRequests, takeEarlyLoad, withPrefetched, type EarlyLoadWindow } from './load-requests';
import { CONFIG } from './test-utils';

const PAYMENT = { payment_id: 'pay_abc123', status: 'requires_payment_method', amount: 100, currency: 'INR' };
const METHODS = { payment_methods: [] };

describe('load requests started by the boot script', () => {
  test('start the one load GET (methods with the payment expanded) as a simple request: the key in the URL, no header', () => {
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response('{}'));
    const prefetched = startLoadRequests(CONFIG, fetch);
    const url = loadUrl(CONFIG);
    expect(url).toBe(
      `${CONFIG.apiBaseUrl}/account/payment_methods?client_secret=${encodeURIComponent(CONFIG.clientSecret)}&expand_payment=true&key=${encodeURIComponent(CONFIG.publishableKey)}`,
    );
    expect([...prefetched.keys()]).toEqual([url]);
    expect(fetch.mock.calls).toEqual([[url]]);
  });

  test("the API client's GETs send no header and carry key=; its POSTs keep the api-key header", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response(JSON.stringify({ ...PAYMENT, customer_payment_methods: [] })));
    const api = createApiClient(fetch, CONFIG);
    await api.retrievePayment();
    await api.listSavedMethods();
    await api.completeAuthorize();
    const key = `key=${encodeURIComponent(CONFIG.publishableKey)}`;
    const [retrieve, saved, post] = fetch.mock.calls;
    expect(retrieve).toEqual([`${CONFIG.apiBaseUrl}/payments/pay_abc123?client_secret=${encodeURIComponent(CONFIG.clientSecret)}&${key}`]);
    expect(saved).toEqual([`${CONFIG.apiBaseUrl}/customers/payment_methods?client_secret=${encodeURIComponent(CONFIG.clientSecret)}&${key}`]);
    expect(post![0]).toBe(`${CONFIG.apiBaseUrl}/payments/pay_abc123/complete_authorize`);
    expect(post![1]).toMatchObject({ method: 'POST', headers: { 'api-key': CONFIG.publishableKey, 'content-type': 'application/json' } });
  });

  test("the boot script takes the request the document's inline script started, once; anything else there is ignored", () => {
    const started = startLoadRequests(CONFIG, vi.fn<typeof globalThis.fetch>(async () => new Response('{}')));
    const win = { [EARLY_LOAD_KEY]: started } as unknown as EarlyLoadWindow;
    expect(takeEarlyLoad(win)).toBe(started);
    expect(takeEarlyLoad(win)).toBeUndefined();
    expect(takeEarlyLoad({ [EARLY_LOAD_KEY]: 'not a map' } as unknown as EarlyLoadWindow)).toBeUndefined();
  });

  test("the API client's load takes the started response, once; later loads and polls fetch again", async () => {
    const early = vi.fn<typeof globalThis.fetch>(async () => new Response(JSON.stringify({ ...METHODS, payment: PAYMENT })));
    const late = vi.fn<typeof globalThis.fetch>(async (input) =>
      new Response(JSON.stringify(String(input).includes('/account/') ? { ...METHODS, payment: { ...PAYMENT, status: 'succeeded' } } : { ...PAYMENT, status: 'succeeded' })),
    );
    const api = createApiClient(withPrefetched(startLoadRequests(CONFIG, early), late), CONFIG);
    expect(await api.loadPaymentAndMethods()).toEqual({ ok: true, value: { ...METHODS, payment: PAYMENT } });
    expect(late).not.toHaveBeenCalled();
    expect(await api.loadPaymentAndMethods()).toEqual({ ok: true, value: { ...METHODS, payment: { ...PAYMENT, status: 'succeeded' } } });
    expect(await api.retrievePayment()).toEqual({ ok: true, value: { ...PAYMENT, status: 'succeeded' } });
    expect(late).toHaveBeenCalledTimes(2);
  });

  test('an answer without the payment is not usable (ERR_6004), so an API without expand_payment cannot half-load the frame', async () => {
    const api = createApiClient(vi.fn<typeof globalThis.fetch>(async () => new Response(JSON.stringify(METHODS))), CONFIG);
    const loaded = await api.loadPaymentAndMethods();
    expect(!loaded.ok && loaded.error.code).toBe('ERR_6004');
  });

  test('a started request that failed is reported by its taker as a network error (ERR_6004), with no unhandled rejection', async () => {
    const early = vi.fn<typeof globalThis.fetch>(async () => {
      throw new TypeError('Failed to fetch');
    });
    const api = createApiClient(withPrefetched(startLoadRequests(CONFIG, early), vi.fn()), CONFIG);
    const loaded = await api.loadPaymentAndMethods();
    expect(loaded.ok).toBe(false);
    expect(!loaded.ok && loaded.error.code).toBe('ERR_6004');
  });

  test('another URL, or a POST to a started URL, is fetched normally', async () => {
    const started = Promise.resolve(new Response('"started"'));
    const url = loadUrl(CONFIG);
    const fetch = vi.fn<typeof globalThis.fetch>(async () => new Response('"fetched"'));
    const wrapped = withPrefetched(new Map([[url, started]]), fetch);
    expect(await (await wrapped(url, { method: 'POST' })).json()).toBe('fetched');
    expect(await (await wrapped(CONFIG.apiBaseUrl + '/other')).json()).toBe('fetched');
    expect(await (await wrapped(url)).json()).toBe('started');
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(withPrefetched(undefined, fetch)).toBeTypeOf('function');
  });
});
