import { effect } from '@preact/signals';
import { render } from 'preact';
import type { FrameEvent, FrameMethods } from '../../protocol/frame-messages';
import { applyAppearance } from './appearance';
import { PaymentForm } from './components/payment-form';
import { VPA_INPUT_ID } from './components/upi-collect-form';
import { connectHost } from './host-connection';
import { parseFrameParams, sanitizeUpdate } from './params';
import { PaymentModel } from './payment-model';
import { observeHeight } from './resize';
import './styles.css';

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

function start(root: HTMLElement): void {
  const params = parseFrameParams(window.location.hash);
  if (!params) {
    // Opened outside an element (or with a tampered URL): talk to nobody.
    root.textContent = 'This page works only inside a Rail payment element.';
    return;
  }
  let host: ReturnType<typeof connectHost> | undefined;
  const emit = (event: FrameEvent) => host?.emit(event);
  const model = new PaymentModel({
    config: params.config,
    emit,
    fetch: (...args) => window.fetch(...args),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  });
  const input = () => document.getElementById(VPA_INPUT_ID) as HTMLInputElement | null;
  const methods: FrameMethods = {
    update: (update) => model.update(sanitizeUpdate(update)),
    confirm: async (request) => {
      const outcome = await model.confirm(request);
      if ('error' in outcome && outcome.error.field_name === 'vpa_id') input()?.focus();
      return outcome;
    },
    focus: () => input()?.focus(),
    blur: () => (document.activeElement as HTMLElement | null)?.blur(),
    clear: () => model.clear(),
  };
  host = connectHost(params.merchantOrigin, params.channel, methods);
  // The API calls start before the handshake finishes; they need nothing from the host.
  void model.load();

  effect(() => {
    applyAppearance(model.appearance.value);
    document.documentElement.lang = model.locale.value;
  });
  trackFocus(root, emit);
  render(<PaymentForm model={model} onEscape={() => emit({ type: 'escape' })} />, root);

  const height = observeHeight(root, (value) => emit({ type: 'resize', height: value }));
  new MutationObserver(height.measure).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  height.measure();
}

start(document.getElementById('root') as HTMLElement);
