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

test('defines window.Rail and takes the frame origin from the script that loaded it', async () => {
  Object.defineProperty(document, 'currentScript', { configurable: true, get: () => ({ src: 'https://js.rail.test/v1/' }) });
  await import('./index');
  expect(typeof window.Rail).toBe('function');
  const element = window.Rail!(PUBLISHABLE_KEY).elements({ clientSecret: CLIENT_SECRET }).create('payment').mount('#payment');
  // The API base placeholder is still in the source, so it falls back to the script's origin.
  expect(frameUrlOf(document.querySelector('iframe')!)).toEqual({ frame: 'https://js.rail.test/frame/', apiBaseUrl: 'https://js.rail.test' });
  element.destroy();
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
