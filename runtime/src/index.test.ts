import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { CLIENT_SECRET, PUBLISHABLE_KEY, disableIframeLoading } from './test-utils';

beforeEach(() => {
  disableIframeLoading();
  vi.resetModules();
  delete window.Rail;
  document.body.innerHTML = '<div id="payment"></div>';
});
afterEach(() => {
  Reflect.deleteProperty(document, 'currentScript');
  document.body.innerHTML = '';
});

function frameUrlOf(iframe: HTMLIFrameElement) {
  const url = new URL(iframe.src);
  const config = JSON.parse(new URLSearchParams(url.hash.slice(1)).get('config')!);
  return { frame: url.origin + url.pathname, apiBaseUrl: config.apiBaseUrl };
}

test('defines window.Rail and takes the frame origin from the script that loaded it; the frame gets no API base', async () => {
  Object.defineProperty(document, 'currentScript', { configurable: true, get: () => ({ src: 'https://js.rail.test/v1/rail.0123456789abcdef.js' }) });
  await import('./index');
  expect(typeof window.Rail).toBe('function');
  const element = window.Rail!(PUBLISHABLE_KEY).elements({ clientSecret: CLIENT_SECRET }).create('payment').mount('#payment');
  // The script holds no deployment value: the frame uses the base_url its own document carries.
  expect(frameUrlOf(document.querySelector('iframe')!)).toEqual({ frame: 'https://js.rail.test/frame/', apiBaseUrl: undefined });
  element.destroy();
});

test("retrievePayment asks the js listener that served the script for its API base, once per page", async () => {
  Object.defineProperty(document, 'currentScript', { configurable: true, get: () => ({ src: 'https://js.rail.test/v1/' }) });
  const calls: string[] = [];
  const fetch = vi.spyOn(window, 'fetch').mockImplementation(async (input) => {
    const url = String(input);
    calls.push(url);
    if (url === 'https://js.rail.test/v1/config.json') return new Response(JSON.stringify({ api_base_url: 'https://api.rail.test' }));
    return new Response(JSON.stringify({ payment_id: 'pay_abc123', status: 'succeeded', amount: 1, currency: 'INR' }));
  });
  try {
    await import('./index');
    const rail = window.Rail!(PUBLISHABLE_KEY);
    expect((await rail.retrievePayment(CLIENT_SECRET)).payment?.status).toBe('succeeded');
    expect((await window.Rail!(PUBLISHABLE_KEY).retrievePayment(CLIENT_SECRET)).payment?.status).toBe('succeeded');
    const api = `https://api.rail.test/payments/pay_abc123?client_secret=${encodeURIComponent(CLIENT_SECRET)}&key=${encodeURIComponent(PUBLISHABLE_KEY)}`;
    expect(calls).toEqual(['https://js.rail.test/v1/config.json', api, api]);
  } finally {
    fetch.mockRestore();
  }
});

test('falls back to the page origin when there is no current script', async () => {
  await import('./index');
  const element = window.Rail!(PUBLISHABLE_KEY).elements({ clientSecret: CLIENT_SECRET }).create('payment').mount('#payment');
  expect(frameUrlOf(document.querySelector('iframe')!).frame).toBe(window.location.origin + '/frame/');
  element.destroy();
});

test('returns independent instances', async () => {
  await import('./index');
  expect(window.Rail!(PUBLISHABLE_KEY)).not.toBe(window.Rail!(PUBLISHABLE_KEY));
});
