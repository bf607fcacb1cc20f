import type { ApiErrorObject } from '../../protocol/errors';
import type { FrameConfig, FrameConfigUpdate, FrameEvent } from '../../protocol/frame-messages';
import { declaredConnectOrigins, frameConnectQuery } from '../../protocol/frame-url';
import type { ElementEventType, ElementHandler, PaymentElement, PaymentElementOptions } from '../../loader/src/types';
import { createEmitter } from './emitter';
import { IntegrationError, describeValue, railError } from './errors';
import type { FrameRemote } from './frame-connection';
import type { RuntimeEnv } from './env';

/** What the rest of the runtime sees of an element; the merchant only sees `element`. */
export interface PaymentElementHandle {
  element: PaymentElement;
  isMounted(): boolean;
  /** The connected frame, or the error that keeps it from being usable (not mounted, load failure, unmounted). */
  remote(): Promise<FrameRemote | ApiErrorObject>;
  push(update: FrameConfigUpdate): void;
  /** Gives the iframe the page's focus, and within the frame `field` (a field_name) or its first control. */
  focusFrame(field?: string): void;
}

export interface ElementContext {
  env: RuntimeEnv;
  config(): FrameConfig;
  onDestroy(): void;
}

/** Heights the host accepts from the frame, in CSS pixels. */
const MIN_HEIGHT = 1;
const MAX_HEIGHT = 4000;
const INITIAL_HEIGHT = '48px';
const DEFAULT_TITLE = 'Secure payment input frame';

interface Mounted {
  iframe: HTMLIFrameElement;
  destroyConnection(): void;
  remote: Promise<FrameRemote | ApiErrorObject>;
  settle(value: FrameRemote | ApiErrorObject): void;
}

function resolveContainer(container: string | HTMLElement): HTMLElement {
  if (typeof container === 'string') {
    const found = document.querySelector<HTMLElement>(container);
    if (!found) throw new IntegrationError('ERR_6002', `Expected mount target "${container}" to match an element, found none.`);
    return found;
  }
  if (container && container.nodeType === 1) return container;
  throw new IntegrationError('ERR_6002', `Expected mount target to be a CSS selector or an HTMLElement, got ${describeValue(container)}.`);
}

/**
 * Enter in the frame behaves like Enter in a native input of the merchant's form (HTML implicit submission): the
 * form's default button is used, a disabled default button blocks it, and requestSubmit() runs the form's own
 * constraint validation first. Stripe submits the form even then (stripe/react-stripe-js#306, react-stripe-elements#271).
 */
export function submitEnclosingForm(iframe: HTMLIFrameElement): void {
  const form = iframe.closest('form');
  if (!form) return;
  const submitter = [...form.elements].find(
    (control): control is HTMLButtonElement | HTMLInputElement =>
      (control instanceof HTMLButtonElement && control.type === 'submit') ||
      (control instanceof HTMLInputElement && (control.type === 'submit' || control.type === 'image')),
  );
  if (submitter?.disabled) return;
  if (typeof form.requestSubmit === 'function') form.requestSubmit(submitter ?? null);
  else form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
}

/**
 * The frame document's URL (without its fragment). The origins the frame will fetch from besides its deployment's
 * API, the page's customBackendUrl and font stylesheets, go in its query: the js listener allows the frame those, and
 * no other, in its CSP connect-src (protocol/frame-url.ts).
 */
export const frameDocumentUrl = (frameUrl: string, config: FrameConfig): string => frameUrl + frameConnectQuery(declaredConnectOrigins(config));

function randomChannel(): string {
  return 'rail-' + (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
}

export function createPaymentElement(context: ElementContext, initialOptions: PaymentElementOptions = {}): PaymentElementHandle {
  const { env } = context;
  const emitter = createEmitter();
  let options = { ...initialOptions };
  let mounted: Mounted | null = null;
  let destroyed = false;

  const notMounted = () => railError('ERR_6001', 'Mount the payment element before calling this method.');

  function onFrameEvent(owner: Mounted, event: FrameEvent): void {
    if (mounted !== owner || !event || typeof event !== 'object') return;
    switch (event.type) {
      case 'resize': {
        const height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(Number(event.height) || 0)));
        owner.iframe.style.height = height + 'px';
        return;
      }
      case 'change':
        emitter.emit('change', {
          elementType: 'payment',
          complete: event.complete === true,
          empty: event.empty === true,
          value: { type: String(event.value?.type ?? '') },
        });
        return;
      case 'loaderror':
        emitter.emit('loaderror', { elementType: 'payment', error: event.error });
        return;
      case 'submit':
        emitter.emit('submit', { elementType: 'payment' });
        submitEnclosingForm(owner.iframe);
        return;
      case 'ready':
      case 'focus':
      case 'blur':
      case 'escape':
        emitter.emit(event.type, { elementType: 'payment' });
    }
  }

  function mount(container: string | HTMLElement): PaymentElement {
    if (destroyed) throw new IntegrationError('ERR_6001', 'This element was destroyed; create a new one with elements.create().');
    if (mounted) return element;
    const target = resolveContainer(container);
    const channel = randomChannel();
    const config = context.config();
    const params = new URLSearchParams({
      origin: window.location.origin,
      channel,
      config: JSON.stringify(config),
    });
    const iframe = document.createElement('iframe');
    iframe.src = frameDocumentUrl(env.frameUrl, config) + '#' + params.toString();
    iframe.title = options.title || DEFAULT_TITLE;
    iframe.allow = 'payment';
    iframe.setAttribute('frameborder', '0');
    iframe.setAttribute('scrolling', 'no');
    iframe.style.cssText = `display:block;width:100%;height:${INITIAL_HEIGHT};border:0;margin:0;padding:0;overflow:hidden;background:transparent`;

    let settle!: (value: FrameRemote | ApiErrorObject) => void;
    const remote = new Promise<FrameRemote | ApiErrorObject>((resolve) => (settle = resolve));
    const owner: Mounted = { iframe, remote, settle, destroyConnection: () => {} };
    mounted = owner;
    emitter.emit('loaderstart', { elementType: 'payment' });
    target.appendChild(iframe);

    const connection = env.connectFrame(iframe, {
      frameOrigin: env.frameOrigin,
      channel,
      timeout: env.frameTimeout,
      methods: { emit: (event: FrameEvent) => onFrameEvent(owner, event) },
    });
    owner.destroyConnection = connection.destroy;
    connection.promise.then(settle, () => {
      if (mounted !== owner) return;
      const error = railError('ERR_6003', 'The payment frame did not load in time. Check the network and the frame URL.');
      settle(error);
      emitter.emit('loaderror', { elementType: 'payment', error });
    });
    return element;
  }

  function unmount(): PaymentElement {
    const current = mounted;
    if (!current) return element;
    mounted = null;
    current.settle(railError('ERR_6006', 'The element was unmounted.'));
    current.destroyConnection();
    current.iframe.remove();
    return element;
  }

  /** Calls a frame method once the connection is up; element methods are fire-and-forget. */
  /**
   * Focus moves into a cross-origin frame only from the embedding page, and focusing the iframe leaves the frame's
   * own focus on its body: so the iframe first, then the frame focuses `field` (or its first control).
   */
  function focusFrame(field?: string): void {
    mounted?.iframe.focus();
    callFrame((remote) => remote.focus(field));
  }

  function callFrame(call: (remote: FrameRemote) => Promise<unknown>): void {
    mounted?.remote.then((remote) => {
      if ('code' in remote) return;
      call(remote).catch(() => {});
    });
  }

  const element: PaymentElement = {
    mount,
    unmount,
    destroy(): void {
      if (destroyed) return;
      unmount();
      destroyed = true;
      emitter.clear();
      context.onDestroy();
    },
    update(next: PaymentElementOptions): PaymentElement {
      options = { ...options, ...next };
      if (mounted && next.title) mounted.iframe.title = next.title;
      return element;
    },
    focus(): PaymentElement {
      focusFrame();
      return element;
    },
    blur(): PaymentElement {
      callFrame((remote) => remote.blur());
      return element;
    },
    clear(): PaymentElement {
      callFrame((remote) => remote.clear());
      return element;
    },
    on<T extends ElementEventType>(type: T, handler: ElementHandler<T>): PaymentElement {
      if (!destroyed) emitter.on(type, handler);
      return element;
    },
    once<T extends ElementEventType>(type: T, handler: ElementHandler<T>): PaymentElement {
      if (!destroyed) emitter.on(type, handler, true);
      return element;
    },
    off<T extends ElementEventType>(type: T, handler?: ElementHandler<T>): PaymentElement {
      emitter.off(type, handler);
      return element;
    },
  };

  return {
    element,
    isMounted: () => mounted !== null,
    remote: () => (mounted ? mounted.remote : Promise.resolve(notMounted())),
    push(update: FrameConfigUpdate): void {
      callFrame((remote) => remote.update(update));
    },
    focusFrame,
  };
}
