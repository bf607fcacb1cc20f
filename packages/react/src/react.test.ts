/**
 * The React bindings against a recording fake of the runtime (the runtime itself is proven by its own tests and the
 * e2e checkout): what <Elements> and <PaymentElement> call on it, when, and with what; events reaching the props;
 * live option updates; StrictMode's double effects; a promised instance; server rendering.
 */
import { act, cleanup, render } from '@testing-library/react';
import { createElement, StrictMode, useState } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { ElementEventType, Elements as RailElements, ElementsOptions, PaymentElement as RailPaymentElement, Rail } from '@rail/loader';
import { Elements, PaymentElement, useElements, useRail } from './index';

interface FakeElement {
  element: RailPaymentElement;
  handlers: Map<string, ((event: unknown) => void)[]>;
  mountedIn: HTMLElement | null;
  destroyed: boolean;
  emit(type: ElementEventType, event: unknown): void;
}

function fakeRail() {
  const created: FakeElement[] = [];
  const groups: { options: ElementsOptions; updates: unknown[]; elements: RailElements }[] = [];
  const rail: Rail = {
    elements(options) {
      const group = { options, updates: [] as unknown[], elements: undefined as unknown as RailElements };
      let current: FakeElement | null = null;
      group.elements = {
        create() {
          if (current) throw new Error('already has a payment element');
          const fake: FakeElement = {
            handlers: new Map(),
            mountedIn: null,
            destroyed: false,
            element: undefined as unknown as RailPaymentElement,
            emit(type, event) {
              for (const handler of fake.handlers.get(type) ?? []) handler(event);
            },
          };
          fake.element = {
            mount(container) {
              fake.mountedIn = container as HTMLElement;
              return fake.element;
            },
            unmount: () => fake.element,
            destroy() {
              fake.destroyed = true;
              fake.mountedIn = null;
              if (current === fake) current = null;
            },
            update: vi.fn(() => fake.element),
            focus: () => fake.element,
            blur: () => fake.element,
            clear: () => fake.element,
            on(type, handler) {
              fake.handlers.set(type, [...(fake.handlers.get(type) ?? []), handler as (event: unknown) => void]);
              return fake.element;
            },
            once: () => fake.element,
            off: () => fake.element,
          };
          current = fake;
          created.push(fake);
          return fake.element;
        },
        getElement: () => current?.element ?? null,
        update(options) {
          group.updates.push(options);
          return group.elements;
        },
      };
      groups.push(group);
      return group.elements;
    },
    confirmPayment: vi.fn(),
    retrievePayment: vi.fn(),
  };
  return { rail, created, groups };
}

afterEach(() => cleanup());

describe('<Elements> and <PaymentElement>', () => {
  test('one elements group with the options; the element is mounted into the rendered div, and destroyed on unmount', () => {
    const { rail, created, groups } = fakeRail();
    const view = render(createElement(Elements, { rail, options: { clientSecret: 'pay_1_secret_a', locale: 'fr' } }, createElement(PaymentElement, { id: 'payment', className: 'pay' })));
    expect(groups).toHaveLength(1);
    expect(groups[0]?.options).toEqual({ clientSecret: 'pay_1_secret_a', locale: 'fr' });
    expect(created).toHaveLength(1);
    const div = view.container.querySelector('#payment');
    expect(div?.className).toBe('pay');
    expect(created[0]?.mountedIn).toBe(div);
    view.unmount();
    expect(created[0]?.destroyed).toBe(true);
  });

  test("the element's events call the matching props, always the latest ones", () => {
    const { rail, created } = fakeRail();
    const first = vi.fn();
    const second = vi.fn();
    const onReady = vi.fn();
    const onLoadError = vi.fn();
    const tree = (onChange: (event: unknown) => void) =>
      createElement(Elements, { rail, options: { clientSecret: 's' } }, createElement(PaymentElement, { onChange, onReady, onLoadError }));
    const view = render(tree(first));
    const fake = created[0] as FakeElement;
    act(() => fake.emit('ready', { elementType: 'payment' }));
    expect(onReady).toHaveBeenCalledWith({ elementType: 'payment' });
    view.rerender(tree(second));
    const change = { elementType: 'payment', complete: true, empty: false, value: { type: 'upi' } };
    act(() => fake.emit('change', change));
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledWith(change);
    act(() => fake.emit('loaderror', { elementType: 'payment', error: { type: 'invalid_request', code: 'ERR_6002', message: 'x' } }));
    expect(onLoadError).toHaveBeenCalledTimes(1);
    // A new handler neither re-mounted nor re-created the element.
    expect(created).toHaveLength(1);
  });

  test('clientSecret, appearance and locale changes go to elements.update(); an unchanged render sends nothing', () => {
    const { rail, groups } = fakeRail();
    const appearance = { theme: 'night' as const };
    const tree = (options: ElementsOptions) => createElement(Elements, { rail, options }, createElement(PaymentElement));
    const view = render(tree({ clientSecret: 'a', appearance }));
    view.rerender(tree({ clientSecret: 'a', appearance }));
    expect(groups[0]?.updates).toEqual([]);
    view.rerender(tree({ clientSecret: 'a', appearance, locale: 'hi' }));
    expect(groups[0]?.updates).toEqual([{ clientSecret: 'a', appearance, locale: 'hi' }]);
    expect(groups).toHaveLength(1);
  });

  test('StrictMode mounts, destroys and mounts again: one live element at the end', () => {
    const { rail, created } = fakeRail();
    render(createElement(StrictMode, null, createElement(Elements, { rail, options: { clientSecret: 's' } }, createElement(PaymentElement))));
    const live = created.filter((fake) => !fake.destroyed);
    expect(live).toHaveLength(1);
    expect(live[0]?.mountedIn).not.toBeNull();
  });

  test('a promised Rail: nothing mounts until it resolves; the hooks then give the instance and its group', async () => {
    const { rail, created, groups } = fakeRail();
    let resolve!: (rail: Rail) => void;
    const promised = new Promise<Rail>((r) => (resolve = r));
    const seen: { rail: Rail | null; elements: RailElements | null }[] = [];
    function Probe() {
      seen.push({ rail: useRail(), elements: useElements() });
      return null;
    }
    render(createElement(Elements, { rail: promised, options: { clientSecret: 's' } }, createElement(PaymentElement), createElement(Probe)));
    expect(created).toHaveLength(0);
    expect(seen.at(-1)).toEqual({ rail: null, elements: null });
    await act(async () => resolve(rail));
    expect(created).toHaveLength(1);
    expect(seen.at(-1)?.rail).toBe(rail);
    expect(seen.at(-1)?.elements).toBe(groups[0]?.elements);
  });

  test('a rejected promise is handled: onLoadError gets the error, nothing mounts, no unhandled rejection', async () => {
    const { created } = fakeRail();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const failure = Object.assign(new Error('Failed to load https://js.rail.test/v1/'), { name: 'LoadError', code: 'failed_to_load' });
      const onLoadError = vi.fn();
      const rejected = Promise.reject(failure);
      render(createElement(Elements, { rail: rejected, options: { clientSecret: 's' }, onLoadError }, createElement(PaymentElement)));
      // Node reports an unhandled rejection after the microtasks of a turn: one macrotask later it would have.
      await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
      expect(onLoadError).toHaveBeenCalledWith(failure);
      expect(created).toHaveLength(0);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  test('a rejected promise without onLoadError goes to console.error, not to an unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const failure = new TypeError('Expected option scriptSrc ({js_url}/v1/), got undefined.');
      render(createElement(Elements, { rail: Promise.reject(failure), options: { clientSecret: 's' } }, createElement(PaymentElement)));
      await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
      expect(consoleError).toHaveBeenCalledWith(failure);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
      consoleError.mockRestore();
    }
  });

  test('swapping the Rail instance makes a new group and element, destroying the old one', () => {
    const one = fakeRail();
    const two = fakeRail();
    function Swap() {
      const [rail, setRail] = useState<Rail>(one.rail);
      (globalThis as { swap?: () => void }).swap = () => setRail(two.rail);
      return createElement(Elements, { rail, options: { clientSecret: 's' } }, createElement(PaymentElement));
    }
    render(createElement(Swap));
    act(() => (globalThis as { swap?: () => void }).swap?.());
    expect(one.created[0]?.destroyed).toBe(true);
    expect(two.created).toHaveLength(1);
    expect(two.created[0]?.mountedIn).not.toBeNull();
  });

  test('the hooks outside <Elements> say so', () => {
    function Lost() {
      useElements();
      return null;
    }
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => render(createElement(Lost))).toThrow('useElements() must be used inside <Elements>.');
  });

  test('server rendering: an empty div, no element created, no DOM touched', () => {
    const { rail, created, groups } = fakeRail();
    const html = renderToString(createElement(Elements, { rail, options: { clientSecret: 's' } }, createElement(PaymentElement, { id: 'payment' })));
    expect(html).toBe('<div id="payment"></div>');
    expect(created).toHaveLength(0);
    // The group itself is plain data (no DOM); the element waits for the browser.
    expect(groups).toHaveLength(1);
    expect(renderToString(createElement(Elements, { rail: null, options: { clientSecret: 's' } }, createElement(PaymentElement)))).toBe('<div></div>');
  });
});
