import { render } from 'preact';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { FrameEvent } from '../../protocol/frame-messages';
import type { HostConnection } from './host-connection';
import { loadUrl } from './load-requests';
import { focusOnArrival, start } from './main';
import { CONFIG, METHODS, PAYMENT, json } from './test-utils';

const PARAMS = { merchantOrigin: 'https://shop.example', channel: 'rail-test', config: CONFIG };
const LOAD_URL = loadUrl(CONFIG);

/** Starts the app with a started load request and records, for each event sent to the page, what the form showed then. */
function startApp(answer: Promise<Response>, config = CONFIG) {
  const root = document.createElement('div');
  document.body.appendChild(root);
  const sent: { event: FrameEvent; vpaField: boolean; skeleton: boolean }[] = [];
  const host: HostConnection = {
    emit: (event) => sent.push({ event, vpaField: root.querySelector('#rail-upi-vpa') !== null, skeleton: root.querySelector('[data-testid="loading"]') !== null }),
    destroy: () => {},
  };
  start(root, { ...PARAMS, config }, new Map([[loadUrl(config), answer]]), { host, started: () => {} });
  return { root, sent };
}

const answered = () => Promise.resolve(json({ ...METHODS, payment: PAYMENT }));
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the frame app: first render and ready', () => {
  afterEach(() => {
    vi.useRealTimers();
    for (const root of [...document.body.children]) {
      render(null, root);
      root.remove();
    }
  });

  test('ready reaches the page only once the form with the methods is in the document', async () => {
    const { sent } = startApp(answered());
    await vi.waitFor(() => expect(sent.map((entry) => entry.event.type)).toContain('ready'));
    expect(sent.find((entry) => entry.event.type === 'ready')).toMatchObject({ vpaField: true, skeleton: false });
  });

  test('an answer already in: the first render is the form, no skeleton before it', async () => {
    const { root } = startApp(answered());
    const seen: boolean[] = [];
    new MutationObserver(() => seen.push(root.querySelector('[data-testid="loading"]') !== null)).observe(root, { childList: true, subtree: true });
    await vi.waitFor(() => expect(root.querySelector('#rail-upi-vpa')).not.toBeNull());
    expect(seen).not.toContain(true);
  });

  test('a slow answer: the skeleton shows after the delay, then the form, then ready', async () => {
    vi.useFakeTimers();
    let answer!: (response: Response) => void;
    const { root, sent } = startApp(new Promise<Response>((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(50);
    expect(root.querySelector('[data-testid="loading"]')).toBeNull();
    await vi.advanceTimersByTimeAsync(60);
    expect(root.querySelector('[data-testid="loading"]')).not.toBeNull();
    expect(sent.map((entry) => entry.event.type)).not.toContain('ready');
    answer(json({ ...METHODS, payment: PAYMENT }));
    vi.useRealTimers();
    await vi.waitFor(() => expect(sent.map((entry) => entry.event.type)).toContain('ready'));
    expect(sent.find((entry) => entry.event.type === 'ready')).toMatchObject({ vpaField: true, skeleton: false });
  });

  test("loader 'always' shows the skeleton at once", async () => {
    const { root } = startApp(new Promise<Response>(() => {}), { ...CONFIG, loader: 'always' });
    expect(root.querySelector('[data-testid="loading"]')).not.toBeNull();
    await settle();
  });

  test('the load request the boot script started is the only one for the first load', async () => {
    const fetch = vi.spyOn(window, 'fetch');
    const { sent } = startApp(answered());
    await vi.waitFor(() => expect(sent.map((entry) => entry.event.type)).toContain('ready'));
    expect(fetch.mock.calls.map(([input]) => String(input))).not.toContain(LOAD_URL);
    fetch.mockRestore();
  });
});

describe('focusOnArrival: the field asked for keeps the focus that arrives at a cross-site frame', () => {
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  function fields() {
    const [number, expiry] = ['number', 'expiry'].map((id) => {
      const input = document.createElement('input');
      input.id = id;
      document.body.appendChild(input);
      return input;
    }) as [HTMLInputElement, HTMLInputElement];
    return { number, expiry };
  }

  /** What a blur and focus of the frame's window that lands on the body does (as the e2e trace showed). */
  function focusArrivesOnBody() {
    (document.activeElement as HTMLElement | null)?.blur();
    window.dispatchEvent(new Event('focus'));
  }

  test('focus that arrives on the body within a second goes back to the field, each time', () => {
    vi.useFakeTimers();
    const { number } = fields();
    focusOnArrival(number);
    for (const _ of [1, 2]) {
      focusArrivesOnBody();
      expect(document.activeElement).toBe(document.body);
      vi.advanceTimersByTime(0);
      expect(document.activeElement).toBe(number);
    }
  });

  test('not once the customer is in another field, nor after the second', () => {
    vi.useFakeTimers();
    const { number, expiry } = fields();
    focusOnArrival(number);
    expiry.focus();
    window.dispatchEvent(new Event('focus'));
    vi.advanceTimersByTime(0);
    expect(document.activeElement).toBe(expiry);
    vi.advanceTimersByTime(1000);
    focusArrivesOnBody();
    vi.advanceTimersByTime(0);
    expect(document.activeElement).toBe(document.body);
  });
});
