import { effect } from '@preact/signals';
import { render } from 'preact';
import type { FrameEvent, FrameMethods } from '../../protocol/frame-messages';
import { applyAppearance, applyFonts } from './appearance';
import { PaymentForm } from './components/payment-form';
import { CARD_INPUT_IDS } from './components/card-form';
import { connectHost, type HostConnection } from './host-connection';
import { withPrefetched, type Prefetched } from './load-requests';
import { sanitizeUpdate, type FrameParams } from './params';
import { PaymentModel } from './payment-model';
import { observeHeight } from './resize';

/** How long the first render waits for the load answer before it shows the skeleton (loader 'auto' and 'never'). */
const SKELETON_DELAY_MS = 100;

/**
 * focus when focus enters the form, blur when it leaves it, once each. Focus moving to the merchant page fires
 * window blur in the frame (not always focusout), so both are watched.
 */
function trackFocus(root: HTMLElement, emit: (event: FrameEvent) => void): void {
  let focused = false;
  const leave = () => {
    if (focused && !(document.hasFocus() && root.contains(document.activeElement))) {
      focused = false;
      emit({ type: 'blur' });
    }
  };
  root.addEventListener('focusin', () => {
    if (!focused) {
      focused = true;
      emit({ type: 'focus' });
    }
  });
  root.addEventListener('focusout', () => setTimeout(leave));
  window.addEventListener('blur', () => setTimeout(leave));
}

/** How long a field asked for keeps its claim on the frame's focus while focus is still arriving at the frame. */
const FOCUS_ON_ARRIVAL_MS = 1000;

/** The claim of the last focusOnArrival, which a newer one replaces. */
let pendingArrival: (() => void) | undefined;

/**
 * Focuses `target`, and focuses it again each time focus arrives at this frame within FOCUS_ON_ARRIVAL_MS, unless
 * the customer has gone elsewhere in the frame meanwhile. On a cross-site page the frame has a renderer of its own:
 * the host's iframe.focus() and the field's own focus() each reach the browser on their own path, and the frame can
 * be blurred and focused again after the field took focus, landing on its body (a trace of window and focus events
 * in e2e "card form with an invalid number", which failed about 1 run in 3 before this).
 */
export function focusOnArrival(target: HTMLElement | null | undefined): void {
  pendingArrival?.();
  if (!target) return;
  target.focus();
  const arrived = () =>
    // After the arriving focus has settled: it may land on the body.
    setTimeout(() => {
      if (document.activeElement === document.body || document.activeElement === target) target.focus();
    });
  const expiry = setTimeout(() => release(), FOCUS_ON_ARRIVAL_MS);
  const release = () => {
    window.removeEventListener('focus', arrived);
    clearTimeout(expiry);
    if (pendingArrival === release) pendingArrival = undefined;
  };
  window.addEventListener('focus', arrived);
  pendingArrival = release;
}

/**
 * The frame app, started by the boot script (boot.ts) with the parsed fragment, the load request it already started
 * and its connection to the page (whose calls wait for `started`).
 */
export function start(
  root: HTMLElement,
  params: FrameParams | undefined,
  prefetched?: Prefetched,
  connection?: { host: HostConnection; started(methods: FrameMethods): void },
): void {
  if (!params) {
    // Opened outside an element (or with a tampered URL): talk to nobody.
    root.textContent = 'This page works only inside a Rail payment element.';
    return;
  }
  // Read by the mount benchmark (bench/mount.ts): the app chunk has run.
  performance.mark('rail:app-start');
  let host: HostConnection | undefined = connection?.host;
  const emit = (event: FrameEvent) => host?.emit(event);
  // `ready` means the form is rendered and takes input: the model says the methods are in, and the page hears it
  // once the form showing them is in the document (onRendered), not before.
  let readyPending = false;
  const model = new PaymentModel({
    config: params.config,
    emit: (event) => (event.type === 'ready' ? (readyPending = true) : emit(event)),
    // The first load takes the boot script's responses; every later call fetches.
    fetch: withPrefetched(prefetched, (...args) => window.fetch(...args)),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  });
  /** The first control of the selected method (or the method selector when the method has no input). */
  const firstControl = () => root.querySelector<HTMLElement>('.Form input:not([disabled]), .Form select:not([disabled]), .Tab--selected input');
  const fieldInput = (field: string) =>
    document.getElementById(field === 'vpa_id' ? 'rail-upi-vpa' : (CARD_INPUT_IDS as Record<string, string>)[field] ?? '');
  const methods: FrameMethods = {
    update: (update) => model.update(sanitizeUpdate(update)),
    confirm: async (request) => {
      const outcome = await model.confirm(request);
      // Move the customer to the field to fix (validation in the frame, or the vault refusing a field).
      const field = 'error' in outcome && outcome.error.field_name ? fieldInput(outcome.error.field_name) : null;
      if (field === null) return outcome;
      focusOnArrival(field);
      return { ...outcome, focused: true };
    },
    // `field` comes from the page: anything but a string focuses the first control.
    focus: (field) => focusOnArrival(typeof field === 'string' ? fieldInput(field) : firstControl()),
    blur: () => (document.activeElement as HTMLElement | null)?.blur(),
    clear: () => model.clear(),
  };
  if (connection) connection.started(methods);
  else host = connectHost(params.merchantOrigin, params.channel, methods);
  // The API calls start before the handshake finishes; they need nothing from the host.
  const loaded = model.load();

  applyFonts(params.config.fonts);
  effect(() => {
    applyAppearance(model.appearance.value);
    document.documentElement.lang = model.locale.value;
  });
  trackFocus(root, emit);
  const onRendered = () => {
    if (!readyPending || model.phase.peek() === 'loading') return;
    readyPending = false;
    emit({ type: 'ready' });
  };
  const height = observeHeight(root, (value) => emit({ type: 'resize', height: value }));
  const renderForm = () => {
    render(<PaymentForm model={model} onEscape={() => emit({ type: 'escape' })} onSubmit={() => emit({ type: 'submit' })} onRendered={onRendered} />, root);
    new MutationObserver(height.measure).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    // Measured in the render's task, so that the page hears the height before the frame's first paint. Measured
    // later (a timer, or the ResizeObserver's first callback), the element is painted at its initial 48 px first and
    // grows a frame after; an e2e click, probably landing while it grew, missed its tab. On a same-site page this
    // layout delays `ready` by some 5 ms; a cross-site frame, as on a merchant's page, runs it beside the page.
    height.measure();
  };
  // The load answer is often in already (the document's inline script asked for it): then the first render is the
  // form itself, with no skeleton rendered, laid out and painted just before it. loader 'always' shows it at once.
  if (params.config.loader === 'always') renderForm();
  else void Promise.race([loaded.catch(() => {}), new Promise((resolve) => setTimeout(resolve, SKELETON_DELAY_MS))]).then(renderForm);
}

