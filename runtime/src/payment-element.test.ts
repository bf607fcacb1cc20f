import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { FrameEvent } from '../../protocol/frame-messages';
import { createRail } from './rail';
import { CLIENT_SECRET, FRAME_ORIGIN, PUBLISHABLE_KEY, disableIframeLoading, fakeEnv, flush } from './test-utils';

beforeEach(() => {
  disableIframeLoading();
  document.body.innerHTML = '<div id="payment"></div><div id="second"></div>';
});

function setup() {
  const fake = fakeEnv();
  const rail = createRail(PUBLISHABLE_KEY, undefined, fake.env);
  const elements = rail.elements({ clientSecret: CLIENT_SECRET, locale: 'fr', appearance: { theme: 'night' } });
  const element = elements.create('payment');
  return { ...fake, rail, elements, element };
}

describe('mount()', () => {
  test('inserts one iframe pointing at the frame with origin, channel and config in the fragment', () => {
    const { element, connections } = setup();
    element.mount('#payment');
    const iframe = document.querySelector<HTMLIFrameElement>('#payment iframe')!;
    expect(iframe.title).toBe('Secure payment input frame');
    expect(iframe.getAttribute('allow')).toBe('payment');
    expect(iframe.style.border).toMatch(/^0|none/);
    const url = new URL(iframe.src);
    expect(url.origin + url.pathname).toBe(FRAME_ORIGIN + '/frame/');
    expect(url.search).toBe('');
    const params = new URLSearchParams(url.hash.slice(1));
    expect(params.get('origin')).toBe(window.location.origin);
    expect(params.get('channel')).toBe(connections[0]!.options.channel);
    expect(JSON.parse(params.get('config')!)).toEqual({
      publishableKey: PUBLISHABLE_KEY,
      clientSecret: CLIENT_SECRET,
      locale: 'fr',
      appearance: { theme: 'night' },
    });
    expect(connections[0]!.options.frameOrigin).toBe(FRAME_ORIGIN);
    expect(connections[0]!.iframe).toBe(iframe);
  });

  test("declares in the frame URL's query the origins the frame fetches from besides its deployment's API (its CSP connect-src), once each", () => {
    const fake = fakeEnv();
    const rail = createRail(PUBLISHABLE_KEY, { customBackendUrl: 'https://API.shop.test:8443/rail/' }, fake.env);
    const fonts = [
      { cssSrc: 'https://fonts.googleapis.com/css2?family=Inter' },
      { cssSrc: 'https://fonts.googleapis.com/css2?family=Lora' },
      { cssSrc: 'http://127.0.0.1:5173/fonts.css' },
      // Not fetched with connect-src (a face loads under font-src), and not a URL the frame fetches.
      { family: 'Brand', src: 'url(https://cdn.shop.test/brand.woff2)' },
      { cssSrc: 'not a url' },
    ];
    rail.elements({ clientSecret: CLIENT_SECRET, fonts }).create('payment').mount('#payment');
    const url = new URL(document.querySelector<HTMLIFrameElement>('#payment iframe')!.src);
    expect(url.origin + url.pathname).toBe(FRAME_ORIGIN + '/frame/');
    expect(url.searchParams.getAll('connect')).toEqual(['https://api.shop.test:8443', 'https://fonts.googleapis.com', 'http://127.0.0.1:5173']);
    expect(JSON.parse(new URLSearchParams(url.hash.slice(1)).get('config')!).fonts).toEqual(fonts);
  });

  test('accepts an element as well as a selector', () => {
    const { element } = setup();
    element.mount(document.getElementById('second')!);
    expect(document.querySelectorAll('#second iframe')).toHaveLength(1);
  });

  test.each([
    ['a selector that matches nothing', '#missing', /"#missing" to match an element/],
    ['a non-element', 42, /got number/],
  ])('throws for %s', (_name, target, message) => {
    const { element } = setup();
    expect(() => element.mount(target as never)).toThrow(message);
  });

  test('is idempotent: a second mount keeps the one iframe and connection', () => {
    const { element, connections } = setup();
    element.mount('#payment').mount('#payment');
    expect(document.querySelectorAll('iframe')).toHaveLength(1);
    expect(connections).toHaveLength(1);
  });

  test('uses a fresh channel for every mount', () => {
    const { element, connections } = setup();
    element.mount('#payment').unmount().mount('#payment');
    expect(connections).toHaveLength(2);
    expect(connections[0]!.options.channel).not.toBe(connections[1]!.options.channel);
  });

  test('emits loaderstart, and loaderror ERR_6003 when the handshake fails', async () => {
    const { element, connections } = setup();
    const events: string[] = [];
    element.on('loaderstart', () => events.push('loaderstart'));
    element.on('loaderror', (event) => events.push('loaderror:' + event.error.code));
    element.mount('#payment');
    connections[0]!.fail();
    await flush();
    expect(events).toEqual(['loaderstart', 'loaderror:ERR_6003']);
  });
});

describe('unmount() and destroy()', () => {
  test('unmount removes the iframe, destroys the connection and is safe twice', () => {
    const { element, connections } = setup();
    element.mount('#payment');
    element.unmount();
    element.unmount();
    expect(document.querySelectorAll('iframe')).toHaveLength(0);
    expect(connections[0]!.destroy).toHaveBeenCalledTimes(1);
  });

  test('destroy frees listeners, is safe twice and forbids a later mount', async () => {
    const { element, connections } = setup();
    const onChange = vi.fn();
    element.on('change', onChange).mount('#payment');
    const { emit } = connections[0]!;
    element.destroy();
    element.destroy();
    emit({ type: 'change', complete: true, empty: false, value: { type: 'upi_collect' } });
    expect(onChange).not.toHaveBeenCalled();
    expect(connections[0]!.destroy).toHaveBeenCalledTimes(1);
    expect(() => element.mount('#payment')).toThrow(/destroyed/);
  });

  test('ignores a late handshake failure after unmount', async () => {
    const { element, connections } = setup();
    const onError = vi.fn();
    element.on('loaderror', onError).mount('#payment').unmount();
    connections[0]!.fail();
    await flush();
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('frame events', () => {
  const FORWARDED: [FrameEvent, string, object][] = [
    [{ type: 'ready' }, 'ready', { elementType: 'payment' }],
    [{ type: 'focus' }, 'focus', { elementType: 'payment' }],
    [{ type: 'blur' }, 'blur', { elementType: 'payment' }],
    [{ type: 'escape' }, 'escape', { elementType: 'payment' }],
    [
      { type: 'change', complete: true, empty: false, value: { type: 'upi_collect' } },
      'change',
      { elementType: 'payment', complete: true, empty: false, value: { type: 'upi_collect' } },
    ],
    [
      { type: 'loaderror', error: { type: 'invalid_request', code: 'ERR_1006', message: 'expired' } },
      'loaderror',
      { elementType: 'payment', error: { type: 'invalid_request', code: 'ERR_1006', message: 'expired' } },
    ],
  ];
  test.each(FORWARDED)('forwards %o as %s', (event, type, expected) => {
    const { element, connections } = setup();
    const handler = vi.fn();
    element.on(type as 'ready', handler).mount('#payment');
    connections[0]!.emit(event);
    expect(handler).toHaveBeenCalledWith(expected);
  });

  test('change events carry only the summary, whatever else the frame sends', () => {
    const { element, connections } = setup();
    const handler = vi.fn();
    element.on('change', handler).mount('#payment');
    connections[0]!.emit({ type: 'change', complete: true, empty: false, value: { type: 'upi_collect', vpa: 'x@y' } } as never);
    expect(handler.mock.calls[0]![0]).toEqual({ elementType: 'payment', complete: true, empty: false, value: { type: 'upi_collect' } });
  });

  test.each([
    [120.2, '121px'],
    [-5, '1px'],
    [99999, '4000px'],
    [Number.NaN, '1px'],
  ])('resize to %s sets the iframe height to %s', (height, expected) => {
    const { element, connections } = setup();
    element.mount('#payment');
    connections[0]!.emit({ type: 'resize', height });
    expect(document.querySelector('iframe')!.style.height).toBe(expected);
  });

  test('once fires one time; off removes one handler or all of a type', () => {
    const { element, connections } = setup();
    const once = vi.fn();
    const kept = vi.fn();
    const removed = vi.fn();
    element.once('focus', once).on('focus', kept).on('focus', removed).off('focus', removed).mount('#payment');
    connections[0]!.emit({ type: 'focus' });
    connections[0]!.emit({ type: 'focus' });
    expect([once.mock.calls.length, kept.mock.calls.length, removed.mock.calls.length]).toEqual([1, 2, 0]);
    element.off('focus');
    connections[0]!.emit({ type: 'focus' });
    expect(kept).toHaveBeenCalledTimes(2);
  });

  test('a throwing handler does not stop the others', () => {
    vi.useFakeTimers();
    try {
      const { element, connections } = setup();
      const after = vi.fn();
      element.on('ready', () => {
        throw new Error('merchant bug');
      }).on('ready', after).mount('#payment');
      connections[0]!.emit({ type: 'ready' });
      expect(after).toHaveBeenCalled();
      expect(() => vi.runAllTimers()).toThrow('merchant bug');
    } finally {
      vi.useRealTimers();
    }
  });

  test('ignores events from a previous mount', () => {
    const { element, connections } = setup();
    const handler = vi.fn();
    element.on('ready', handler).mount('#payment').unmount().mount('#payment');
    connections[0]!.emit({ type: 'ready' });
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('element methods', () => {
  test('focus, blur and clear call the frame once connected; before mount they do nothing', async () => {
    const { element, connections, remote } = setup();
    element.focus().blur().clear();
    element.mount('#payment');
    element.focus().blur().clear();
    connections[0]!.connect();
    await flush();
    expect([remote.focus.mock.calls.length, remote.blur.mock.calls.length, remote.clear.mock.calls.length]).toEqual([1, 1, 1]);
  });

  test('update changes the iframe title', () => {
    const { element } = setup();
    element.mount('#payment').update({ title: 'Pay with UPI' });
    expect(document.querySelector('iframe')!.title).toBe('Pay with UPI');
  });
});

test('several elements and instances on one page keep their own frames and channels', () => {
  const first = setup();
  const second = setup();
  first.element.mount('#payment');
  second.element.mount('#second');
  expect(document.querySelectorAll('iframe')).toHaveLength(2);
  expect(first.connections[0]!.options.channel).not.toBe(second.connections[0]!.options.channel);
  const onReady = vi.fn();
  second.element.on('ready', onReady);
  first.connections[0]!.emit({ type: 'ready' });
  expect(onReady).not.toHaveBeenCalled();
});
