import { computed, createModel, effect, signal } from '@preact/signals';
import type { ApiErrorObject } from '../../protocol/errors';
import type {
  ConfirmOutcome,
  ConfirmRequest,
  FrameConfig,
  FrameConfigUpdate,
  FrameEvent,
  PaymentResult,
} from '../../protocol/frame-messages';
import { createApiClient, type PaymentMethodList } from './api-client';
import { timestampToMs } from './deadline';
import { clientError } from './errors';
import { messagesFor, type MessageKey } from './i18n';
import { UpiCollectModel } from './upi-collect-model';

/** Statuses after which a payment never changes (protocol/payments.ts FINAL_PAYMENT_STATUSES, kept zod-free). */
export const FINAL_STATUSES: readonly string[] = ['succeeded', 'failed', 'cancelled', 'cancelled_post_capture', 'partially_captured'];

const MIN_POLL_MS = 250;
const MAX_POLL_MS = 10_000;
const DEFAULT_POLL_MS = 2_000;
/** Longest a wait screen polls when the API gives no deadline (the client_secret lifetime). */
const MAX_WAIT_MS = 15 * 60_000;

export type Phase = 'loading' | 'ready' | 'loaderror' | 'processing' | 'waiting' | 'done';

/** A message for the polite live region: a catalog key, plus the API's own text when it has one. */
export interface Notice {
  kind: 'error' | 'info' | 'success';
  key: MessageKey;
  detail?: string;
}

export interface PaymentModelDeps {
  config: FrameConfig;
  emit(event: FrameEvent): void;
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
  now(): number;
}

function upiCollectOffered(list: PaymentMethodList): boolean {
  return list.payment_methods.some(
    (method) =>
      method.payment_method === 'upi' &&
      (!method.payment_method_types || method.payment_method_types.some((type) => type.payment_method_type === 'upi_collect')),
  );
}

/**
 * The payment element's state: loads the payment and its methods, owns the UPI collect form, confirms and follows
 * the wait screen until a final status. Components only render it and forward DOM events.
 */
export const PaymentModel = createModel((deps: PaymentModelDeps) => {
  const config = signal<FrameConfig>(deps.config);
  const phase = signal<Phase>('loading');
  const amount = signal<{ value: number; currency: string } | null>(null);
  const methodAvailable = signal(false);
  const notice = signal<Notice | null>(null);
  const upi = new UpiCollectModel();
  const locale = computed(() => config.value.locale ?? 'en');
  const messages = computed(() => messagesFor(locale.value));
  const appearance = computed(() => config.value.appearance);

  let loadGeneration = 0;
  let readySent = false;
  let inFlight: Promise<ConfirmOutcome> | null = null;

  // Change events carry completeness only, never the VPA itself.
  let previous = '';
  effect(() => {
    const complete = upi.complete.value;
    const empty = upi.empty.value;
    const key = `${complete}:${empty}`;
    if (previous !== '' && key !== previous) deps.emit({ type: 'change', complete, empty, value: { type: 'upi_collect' } });
    previous = key;
  });

  async function load(): Promise<void> {
    const generation = ++loadGeneration;
    phase.value = 'loading';
    notice.value = null;
    const api = createApiClient(deps.fetch, config.peek());
    const [methods, payment] = await Promise.all([api.listPaymentMethods(), api.retrievePayment()]);
    if (generation !== loadGeneration) return;
    if (!methods.ok || !payment.ok) {
      const error = !methods.ok ? methods.error : (payment as { error: ApiErrorObject }).error;
      phase.value = 'loaderror';
      notice.value = { kind: 'error', key: 'loadFailed' };
      deps.emit({ type: 'loaderror', error });
      return;
    }
    amount.value = { value: payment.value.amount, currency: payment.value.currency || methods.value.currency || 'INR' };
    methodAvailable.value = upiCollectOffered(methods.value);
    if (!methodAvailable.value) notice.value = { kind: 'error', key: 'noMethods' };
    phase.value = 'ready';
    if (!readySent) {
      readySent = true;
      deps.emit({ type: 'ready' });
    }
  }

  async function waitForFinal(api: ReturnType<typeof createApiClient>, payment: PaymentResult, generation: number): Promise<PaymentResult> {
    const action = payment.next_action;
    if (action?.type !== 'wait_screen_information') return payment;
    const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, action.poll_interval_ms || DEFAULT_POLL_MS));
    const deadline = action.display_to_timestamp ? timestampToMs(action.display_to_timestamp) : deps.now() + MAX_WAIT_MS;
    let current = payment;
    while (deps.now() < Math.min(deadline, deps.now() + MAX_WAIT_MS) && generation === loadGeneration) {
      await deps.sleep(interval);
      if (generation !== loadGeneration) break;
      const next = await api.retrievePayment();
      // A failed poll (network blip) is retried at the next interval until the deadline.
      if (!next.ok) continue;
      current = next.value;
      if (FINAL_STATUSES.includes(current.status) || current.next_action?.type !== 'wait_screen_information') break;
    }
    return current;
  }

  async function runConfirm(request: ConfirmRequest): Promise<ConfirmOutcome> {
    if (phase.value === 'loading') await new Promise<void>((resolve) => {
      const stop = effect(() => {
        if (phase.value !== 'loading') {
          queueMicrotask(() => stop());
          resolve();
        }
      });
    });
    if (phase.value === 'loaderror') return { error: clientError('ERR_6003', 'The payment form did not load; it cannot confirm.') };
    if (!methodAvailable.value) return { error: clientError('ERR_6005', 'No payment method is available for this payment.') };
    if (!upi.complete.value) {
      upi.reveal();
      return {
        error: clientError('ERR_6005', upi.empty.value ? 'The UPI ID is missing.' : 'The UPI ID is not valid.', 'vpa_id'),
      };
    }
    const generation = loadGeneration;
    const api = createApiClient(deps.fetch, config.peek());
    phase.value = 'processing';
    notice.value = { kind: 'info', key: 'processing' };
    const confirmed = await api.confirmUpiCollect(upi.vpaId.value, request.return_url);
    if (!confirmed.ok) {
      phase.value = 'ready';
      notice.value = {
        kind: 'error',
        key: confirmed.error.code === 'ERR_6004' ? 'requestFailed' : 'failed',
        detail: confirmed.error.message,
      };
      return { error: confirmed.error };
    }
    let payment = confirmed.value;
    if (payment.next_action?.type === 'wait_screen_information') {
      phase.value = 'waiting';
      notice.value = { kind: 'info', key: 'waiting' };
      payment = await waitForFinal(api, payment, generation);
    }
    settle(payment);
    return { payment };
  }

  function settle(payment: PaymentResult): void {
    if (payment.status === 'succeeded') {
      phase.value = 'done';
      notice.value = { kind: 'success', key: 'succeeded' };
    } else if (payment.status === 'failed') {
      phase.value = 'ready';
      notice.value = { kind: 'error', key: 'failed', detail: payment.error_message ?? undefined };
    } else if (FINAL_STATUSES.includes(payment.status)) {
      phase.value = 'done';
      notice.value = null;
    } else {
      // Redirects and timed-out wait screens: the host decides what happens next.
      phase.value = payment.next_action?.type === 'redirect_to_url' ? 'processing' : 'ready';
      notice.value = payment.next_action?.type === 'redirect_to_url' ? null : { kind: 'info', key: 'pending' };
    }
  }

  return {
    config,
    phase,
    amount,
    methodAvailable,
    notice,
    upi,
    locale,
    messages,
    appearance,
    load,
    /** Concurrent confirms share one request: a double click never confirms twice. */
    confirm(request: ConfirmRequest): Promise<ConfirmOutcome> {
      if (!inFlight) {
        inFlight = runConfirm(request).finally(() => {
          inFlight = null;
        });
      }
      return inFlight;
    },
    update(update: FrameConfigUpdate) {
      const secretChanged = update.clientSecret !== undefined && update.clientSecret !== config.value.clientSecret;
      config.value = { ...config.value, ...update };
      if (secretChanged) {
        upi.clear();
        void load();
      }
    },
    clear() {
      upi.clear();
      if (notice.value?.kind === 'error' && phase.value === 'ready' && methodAvailable.value) notice.value = null;
    },
  };
});
export type Payment = InstanceType<typeof PaymentModel>;
