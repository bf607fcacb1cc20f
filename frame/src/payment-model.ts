import { computed, createModel, effect, signal } from '@preact/signals';
import type { ApiErrorObject } from '../../protocol/errors';
import type {
  ConfirmOutcome,
  ConfirmRequest,
  ResolvedFrameConfig,
  FrameConfigUpdate,
  FrameEvent,
  PaymentResult,
} from '../../protocol/frame-messages';
import type { WalletData } from '../../protocol/api/payments';
import type { NextAction } from '../../protocol/payments';
import { createApiClient, type ConfirmMethod, type PaymentMethodList, type SavedMethodList } from './api-client';
import { CardModel, type CardField } from './card-model';
import { timestampToMs } from './deadline';
import { clientError } from './errors';
import { DEFAULT_MESSAGES, loadMessages, type MessageKey, type Messages } from './i18n';
import { MSISDN_RULE, TextFieldModel, VPA_RULE } from './text-field-model';

/** Statuses after which a payment never changes (protocol/payments.ts FINAL_PAYMENT_STATUSES, kept zod-free). */
export const FINAL_STATUSES: readonly string[] = ['succeeded', 'failed', 'cancelled', 'cancelled_post_capture', 'partially_captured', 'expired'];

const MIN_POLL_MS = 250;
const MAX_POLL_MS = 10_000;
const DEFAULT_POLL_MS = 2_000;
/** Longest a wait screen polls when the API gives no deadline (the client_secret lifetime). */
const MAX_WAIT_MS = 15 * 60_000;

export type Phase = 'loading' | 'ready' | 'loaderror' | 'processing' | 'waiting' | 'action' | 'done';

/** A message for the polite live region: a catalog key, plus the API's own text when it has one. */
export interface Notice {
  kind: 'error' | 'info' | 'success';
  key: MessageKey;
  detail?: string;
}

export interface PaymentModelDeps {
  config: ResolvedFrameConfig;
  emit(event: FrameEvent): void;
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
  now(): number;
}

/** One choice in the method selector: what the customer picks and what confirm sends. */
export interface MethodOption {
  /** `card`, `upi_collect`, `upi_intent`, `upi_qr`, `crypto`, `bank_transfer:<type>` or `mobile_payment:<type>`. */
  id: string;
  payment_method: string;
  payment_method_type: string;
  label: MessageKey;
  /** A saved method: what the tab shows besides its label (`•••• 4242`, the UPI type). */
  detail?: string;
  /** A saved method: the payment_token confirm sends instead of payment method data. */
  paymentToken?: string;
}

/** The chargeable saved methods of the payment's customer, as options (id `saved:<payment_token>`), newest first. */
export function savedOptions(list: SavedMethodList): MethodOption[] {
  return list.customer_payment_methods
    .filter((method) => method.recurring_enabled)
    .map((method) => ({
      id: `saved:${method.payment_token}`,
      payment_method: method.payment_method,
      payment_method_type: method.payment_method_type ?? method.payment_method,
      label: 'tabSaved' as const,
      detail: method.card?.last4_digits ? `•••• ${method.card.last4_digits}` : (method.payment_method_type ?? method.payment_method).replace('_', ' ').toUpperCase(),
      paymentToken: method.payment_token,
    }));
}

/** next_actions the frame shows itself (a QR code, transfer instructions, a crypto address, an app link). */
export type ScreenAction = Exclude<NextAction, { type: 'wait_screen_information' }>;

export const CRYPTO_CURRENCIES = ['BTC', 'ETH', 'USDC', 'USDT'] as const;

/**
 * Wallets the frame offers as tabs when the list names them and the acquirer answers a session token for them: in
 * test mode the simulated acquirer's, whose confirm takes the simulator's test tokens (docs/simulator.md).
 */
const WALLETS = { google_pay: 'tabGooglePay', apple_pay: 'tabApplePay', paypal: 'tabPayPal' } as const;

/** What the test wallet's sheet answers: the simulator's approved or declined token. */
export type WalletOutcome = 'approved' | 'declined';

const ORDER = ['card', 'wallet', 'upi_collect', 'upi_intent', 'upi_qr', 'bank_transfer', 'mobile_payment', 'crypto'];

/** Display order of method options; saved methods (not in ORDER) come first. */
const byDisplayOrder = (a: MethodOption, b: MethodOption) => ORDER.indexOf(a.id.split(':')[0] ?? '') - ORDER.indexOf(b.id.split(':')[0] ?? '');

/** The methods of the list this frame can take, in display order; others (pay later, unknown wallets) are left out. */
export function methodOptions(list: PaymentMethodList): MethodOption[] {
  const options: MethodOption[] = [];
  for (const method of list.payment_methods) {
    const types = (method.payment_method_types ?? []).map((type) => type.payment_method_type);
    switch (method.payment_method) {
      case 'card':
        if (!options.some((option) => option.id === 'card')) {
          options.push({ id: 'card', payment_method: 'card', payment_method_type: 'credit', label: 'tabCard' });
        }
        break;
      case 'upi':
        for (const [type, label] of [['upi_collect', 'tabUpiCollect'], ['upi_intent', 'tabUpiIntent'], ['upi_qr', 'tabUpiQr']] as const) {
          if (types.length === 0 ? type === 'upi_collect' : types.includes(type)) {
            options.push({ id: type, payment_method: 'upi', payment_method_type: type, label });
          }
        }
        break;
      case 'crypto':
        options.push({ id: 'crypto', payment_method: 'crypto', payment_method_type: types[0] ?? 'crypto_currency', label: 'tabCrypto' });
        break;
      case 'bank_transfer':
        for (const type of types.length ? types : ['local_bank_transfer']) {
          options.push({ id: `bank_transfer:${type}`, payment_method: 'bank_transfer', payment_method_type: type, label: 'tabBankTransfer' });
        }
        break;
      case 'wallet':
        for (const type of types) {
          if (Object.hasOwn(WALLETS, type)) {
            options.push({ id: `wallet:${type}`, payment_method: 'wallet', payment_method_type: type, label: WALLETS[type as keyof typeof WALLETS] });
          }
        }
        break;
      case 'mobile_payment':
        // Mobile money (momo) only: the other mobile_payment types (carrier billing) need inputs this frame lacks.
        if (types.includes('momo')) options.push({ id: 'mobile_payment:momo', payment_method: 'mobile_payment', payment_method_type: 'momo', label: 'tabMobileMoney' });
    }
  }
  return options.sort(byDisplayOrder);
}

const isHttpUrl = (url: string) => /^https?:\/\//i.test(url);

const CARD_MESSAGES: Record<CardField, string> = {
  card_number: 'The card number is missing or not valid.',
  card_exp: 'The expiry date is missing or not valid.',
  card_cvc: 'The security code is missing or not valid.',
  card_holder_name: 'The name on the card is missing or not valid.',
};

/**
 * The payment element's state: loads the payment and its methods, owns the method forms (card, UPI, crypto),
 * confirms (tokenizing a card in the vault first) and follows next_actions the frame can show itself until a
 * final status. Components only render it and forward DOM events.
 */
export const PaymentModel = createModel((deps: PaymentModelDeps) => {
  const config = signal<ResolvedFrameConfig>(deps.config);
  const phase = signal<Phase>('loading');
  const amount = signal<{ value: number; currency: string } | null>(null);
  const methods = signal<MethodOption[]>([]);
  const selectedId = signal<string | null>(null);
  const selected = computed(() => methods.value.find((option) => option.id === selectedId.value) ?? null);
  const methodAvailable = computed(() => methods.value.length > 0);
  const notice = signal<Notice | null>(null);
  const screen = signal<ScreenAction | null>(null);
  const upi = new TextFieldModel(VPA_RULE);
  const mobileMoney = new TextFieldModel(MSISDN_RULE);
  const card = new CardModel();
  const cryptoCurrency = signal<string>(CRYPTO_CURRENCIES[0]);
  const walletOutcome = signal<WalletOutcome>('approved');
  const locale = computed(() => config.value.locale ?? 'en');
  // English until the locale's own chunk is in; the first load waits for it, so `ready` shows the locale's words.
  const localeMessages = signal<Messages>(DEFAULT_MESSAGES);
  const messages = computed(() => localeMessages.value);
  effect(() => {
    const wanted = locale.value;
    void loadMessages(wanted).then((loaded) => {
      if (locale.peek() === wanted) localeMessages.value = loaded;
    });
  });
  const appearance = computed(() => config.value.appearance);

  let loadGeneration = 0;
  let readySent = false;
  let inFlight: Promise<ConfirmOutcome> | null = null;
  /** The outcome of the confirm that brought the payment to a final status, answered to any later confirm. */
  let finished: ConfirmOutcome | null = null;

  /** Completeness of the selected method's inputs; methods without inputs are complete as they are. */
  const state = computed(() => {
    const id = selectedId.value;
    if (id === 'upi_collect') return { complete: upi.complete.value, empty: upi.empty.value };
    if (id === 'card') return { complete: card.complete.value, empty: card.empty.value };
    if (id === 'mobile_payment:momo') return { complete: mobileMoney.complete.value, empty: mobileMoney.empty.value };
    return { complete: true, empty: false };
  });

  // Change events carry the method type and completeness only, never what was typed.
  let previous = '';
  effect(() => {
    const type = selectedId.value;
    if (type === null) return;
    const { complete, empty } = state.value;
    const key = `${type}:${complete}:${empty}`;
    if (previous !== '' && key !== previous) {
      deps.emit({ type: 'change', complete, empty, value: { type: type.startsWith('wallet:') ? type.slice('wallet:'.length) : (type.split(':')[0] ?? type) } });
    }
    previous = key;
  });

  async function load(): Promise<void> {
    const generation = ++loadGeneration;
    finished = null;
    phase.value = 'loading';
    notice.value = null;
    screen.value = null;
    const api = createApiClient(deps.fetch, config.peek());
    const wanted = locale.peek();
    const [loaded, wantedMessages] = await Promise.all([api.loadPaymentAndMethods(), loadMessages(wanted)]);
    if (generation !== loadGeneration) return;
    if (locale.peek() === wanted) localeMessages.value = wantedMessages;
    if (!loaded.ok) {
      phase.value = 'loaderror';
      notice.value = { kind: 'error', key: 'loadFailed' };
      deps.emit({ type: 'loaderror', error: loaded.error });
      return;
    }
    const { payment, ...list } = loaded.value;
    amount.value = { value: payment.amount, currency: payment.currency || list.currency || 'INR' };
    const listed = methodOptions(list);
    // The wallet tabs play a simulated wallet (an answer select, the simulator's tokens): test keys only.
    const testMode = config.peek().publishableKey.startsWith('rail_open_test_');
    const walletOptions = testMode ? listed.filter((option) => option.payment_method === 'wallet') : [];
    // A payment of a known customer offers the customer's saved methods first; without them the frame works as before.
    const saved = typeof payment['customer_id'] === 'string' ? await api.listSavedMethods() : undefined;
    if (generation !== loadGeneration) return;
    const options = [...(saved?.ok ? savedOptions(saved.value) : []), ...listed.filter((option) => option.payment_method !== 'wallet')];
    methods.value = options;
    if (!options.some((option) => option.id === selectedId.peek())) selectedId.value = options[0]?.id ?? null;
    if (options.length === 0) notice.value = { kind: 'error', key: 'noMethods' };
    phase.value = 'ready';
    if (!readySent) {
      readySent = true;
      performance.mark('rail:methods');
      deps.emit({ type: 'ready' });
    }
    if (walletOptions.length > 0) void addWallets(api, walletOptions, generation);
  }

  /**
   * Wallet tabs join once their session tokens arrive, after `ready`: the element never waits for a second round
   * trip, and a wallet without a token (or a refused request) is simply not offered. They join after the tabs already
   * shown, so that none of those moves from under a customer's (or a test's) click.
   */
  async function addWallets(api: ReturnType<typeof createApiClient>, walletOptions: MethodOption[], generation: number): Promise<void> {
    const tokens = await api.walletSessionTokens(walletOptions.map((option) => option.payment_method_type));
    if (generation !== loadGeneration || !tokens.ok) return;
    const tokenized = new Set(tokens.value.session_token.map((token) => token.wallet_name));
    const offered = walletOptions.filter((option) => tokenized.has(option.payment_method_type));
    if (offered.length === 0) return;
    methods.value = [...methods.peek(), ...offered];
    if (selectedId.peek() === null) {
      selectedId.value = methods.peek()[0]?.id ?? null;
      if (notice.peek()?.key === 'noMethods') notice.value = null;
    }
  }

  /**
   * Polls while the payment shows the same next_action, until a final status, another next_action, or the
   * action's deadline (display_to_timestamp, at most the client_secret's lifetime).
   */
  async function poll(api: ReturnType<typeof createApiClient>, payment: PaymentResult, generation: number): Promise<{ payment: PaymentResult; moved: boolean }> {
    const action = payment.next_action;
    const wait = action?.type === 'wait_screen_information' ? action : undefined;
    const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, wait?.poll_interval_ms || DEFAULT_POLL_MS));
    const until = wait?.display_to_timestamp ?? (action?.type === 'qr_code_information' ? action.display_to_timestamp : null);
    const start = deps.now();
    const deadline = Math.min(until ? timestampToMs(until) : start + MAX_WAIT_MS, start + MAX_WAIT_MS);
    let current = payment;
    while (deps.now() < deadline && generation === loadGeneration) {
      await deps.sleep(interval);
      if (generation !== loadGeneration) break;
      const next = await api.retrievePayment();
      // A failed poll (network blip) is retried at the next interval until the deadline.
      if (!next.ok) continue;
      current = next.value;
      if (FINAL_STATUSES.includes(current.status) || current.next_action?.type !== action?.type) return { payment: current, moved: true };
    }
    return { payment: current, moved: false };
  }

  /** Shows next_actions the frame handles itself and polls until the payment moves on; http(s) redirects go to the host. */
  async function follow(api: ReturnType<typeof createApiClient>, payment: PaymentResult, generation: number): Promise<PaymentResult> {
    let current = payment;
    for (;;) {
      const action = current.next_action;
      if (!action || FINAL_STATUSES.includes(current.status)) return current;
      if (action.type === 'redirect_to_url' && isHttpUrl(action.redirect_to_url)) return current;
      if (action.type === 'wait_screen_information') {
        screen.value = null;
        phase.value = 'waiting';
        notice.value = { kind: 'info', key: 'waiting' };
      } else {
        screen.value = action;
        phase.value = 'action';
        notice.value = { kind: 'info', key: 'actionWaiting' };
      }
      const next = await poll(api, current, generation);
      current = next.payment;
      if (!next.moved) return current;
    }
  }

  function validationError(): ApiErrorObject | null {
    const option = selected.peek();
    if (!option) return clientError('ERR_6005', 'No payment method is available for this payment.');
    if (option.id === 'upi_collect' && !upi.complete.value) {
      upi.reveal();
      return clientError('ERR_6005', upi.empty.value ? 'The UPI ID is missing.' : 'The UPI ID is not valid.', 'vpa_id');
    }
    if (option.id === 'mobile_payment:momo' && !mobileMoney.complete.value) {
      mobileMoney.reveal();
      return clientError('ERR_6005', mobileMoney.empty.value ? 'The mobile money number is missing.' : 'The mobile money number is not valid.', 'msisdn');
    }
    if (option.id === 'card' && !card.complete.value) {
      card.reveal();
      const field = card.firstInvalid.value ?? 'card_number';
      return clientError('ERR_6005', CARD_MESSAGES[field], field);
    }
    return null;
  }

  /** The confirm body for the selected method; for cards, tokenizes first (the number goes to the vault only). */
  async function confirmMethod(api: ReturnType<typeof createApiClient>, option: MethodOption): Promise<{ ok: true; value: ConfirmMethod } | { ok: false; error: ApiErrorObject }> {
    const base = { payment_method: option.payment_method, payment_method_type: option.payment_method_type };
    switch (option.payment_method) {
      case 'card': {
        const token = await api.createVaultToken(card.vaultCard());
        if (!token.ok) return token;
        return { ok: true, value: { ...base, payment_method_data: { psp_token: token.value.psp_token } } };
      }
      case 'upi':
        return { ok: true, value: { ...base, payment_method_data: { upi: { [option.payment_method_type]: option.id === 'upi_collect' ? { vpa_id: upi.value.value } : {} } } } };
      case 'crypto':
        return { ok: true, value: { ...base, payment_method_data: { crypto: { pay_currency: cryptoCurrency.value } } } };
      case 'mobile_payment':
        return { ok: true, value: { ...base, payment_method_data: { mobile_payment: { momo: { msisdn: mobileMoney.value.value } } } } };
      case 'wallet': {
        const wallet = await walletData(api, option.payment_method_type);
        if (!wallet.ok) return wallet;
        return { ok: true, value: { ...base, payment_method_data: { wallet: wallet.value } } };
      }
      default:
        return { ok: true, value: { ...base, payment_method_data: { [option.payment_method]: { [option.payment_method_type]: {} } } } };
    }
  }

  /**
   * The test wallet's payment_method_data, in the wallet's own shape, with the token the simulator reads
   * (docs/simulator.md): an approved PayPal payment confirms with the order post_session_tokens opens for it.
   */
  async function walletData(api: ReturnType<typeof createApiClient>, wallet: string): Promise<{ ok: true; value: WalletData } | { ok: false; error: ApiErrorObject }> {
    const token = `sim_wallet_${walletOutcome.value}`;
    if (wallet === 'paypal') {
      const order = walletOutcome.value === 'approved' ? await api.openWalletOrder(wallet) : undefined;
      if (order && !order.ok) return order;
      return { ok: true, value: { paypal_sdk: { token: order ? order.value.next_action.next_action_data.order_id : token } } };
    }
    if (wallet === 'apple_pay') {
      const card = { display_name: 'Visa 4242', network: 'Visa', type: 'debit' };
      return { ok: true, value: { apple_pay: { payment_data: token, payment_method: card, transaction_identifier: `sim_txn_${deps.now()}` } } };
    }
    const google_pay = { type: 'CARD', description: 'Visa •••• 4242', info: { card_network: 'VISA', card_details: '4242' }, tokenization_data: { type: 'PAYMENT_GATEWAY', token } } as const;
    return { ok: true, value: { google_pay } };
  }

  /**
   * External 3DS (next_action three_ds_invoke): authenticates, then authorizes a frictionless (Y) answer; after a
   * challenge (C) or a rejection (N) the payment itself says what follows (a redirect to the challenge, or failed).
   */
  async function authenticateExternally(api: ReturnType<typeof createApiClient>) {
    const authentication = await api.authenticateThreeDs();
    if (!authentication.ok) return authentication;
    return authentication.value.trans_status === 'Y' ? api.completeAuthorize() : api.retrievePayment();
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
    const invalid = validationError();
    if (invalid) return { error: invalid };
    const option = selected.peek() as MethodOption;
    const generation = loadGeneration;
    const api = createApiClient(deps.fetch, config.peek());
    phase.value = 'processing';
    notice.value = { kind: 'info', key: 'processing' };
    const method = option.paymentToken === undefined ? await confirmMethod(api, option) : undefined;
    let confirmed =
      option.paymentToken !== undefined
        ? await api.confirmSaved(option.paymentToken, request.return_url)
        : method?.ok
          ? await api.confirm(method.value, request.return_url)
          : (method as { ok: false; error: ApiErrorObject });
    if (confirmed.ok && confirmed.value.next_action?.type === 'three_ds_invoke') confirmed = await authenticateExternally(api);
    if (!confirmed.ok) {
      phase.value = 'ready';
      notice.value = {
        kind: 'error',
        key: confirmed.error.code === 'ERR_6004' ? 'requestFailed' : 'failed',
        detail: confirmed.error.message,
      };
      return { error: confirmed.error };
    }
    const payment = await follow(api, confirmed.value, generation);
    settle(payment);
    if (phase.peek() === 'done' && generation === loadGeneration) finished = { payment };
    return { payment };
  }

  function settle(payment: PaymentResult): void {
    const redirect = payment.next_action?.type === 'redirect_to_url' && isHttpUrl(payment.next_action.redirect_to_url);
    if (!redirect && !(phase.value === 'action' && !FINAL_STATUSES.includes(payment.status))) screen.value = null;
    if (payment.status === 'succeeded') {
      phase.value = 'done';
      notice.value = { kind: 'success', key: 'succeeded' };
    } else if (payment.status === 'failed') {
      phase.value = 'ready';
      notice.value = { kind: 'error', key: 'failed', detail: payment.error_message ?? undefined };
    } else if (FINAL_STATUSES.includes(payment.status)) {
      phase.value = 'done';
      notice.value = null;
    } else if (redirect) {
      // The host navigates the top window to the server's URL (3DS, bank pages).
      phase.value = 'processing';
      notice.value = { kind: 'info', key: 'redirecting' };
    } else {
      // Timed-out wait screens and instructions: the host decides what happens next.
      phase.value = 'ready';
      notice.value = { kind: 'info', key: 'pending' };
    }
  }

  return {
    config,
    phase,
    amount,
    methods,
    selectedId,
    selected,
    methodAvailable,
    notice,
    screen,
    upi,
    mobileMoney,
    card,
    cryptoCurrency,
    walletOutcome,
    locale,
    messages,
    appearance,
    load,
    select(id: string) {
      const busy = phase.value === 'processing' || phase.value === 'waiting' || phase.value === 'action';
      if (!busy && methods.value.some((option) => option.id === id)) selectedId.value = id;
    },
    /**
     * Concurrent confirms share one request: a double click never confirms twice. Once the payment is final here, a
     * confirm answers that outcome again and sends nothing (the card does not go to the vault a second time).
     */
    confirm(request: ConfirmRequest): Promise<ConfirmOutcome> {
      if (finished) return Promise.resolve(finished);
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
        mobileMoney.clear();
        card.clear();
        void load();
      }
    },
    clear() {
      upi.clear();
      mobileMoney.clear();
      card.clear();
      if (notice.value?.kind === 'error' && phase.value === 'ready' && methodAvailable.value) notice.value = null;
    },
  };
});
export type Payment = InstanceType<typeof PaymentModel>;
