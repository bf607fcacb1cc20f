import { render } from 'preact';
import { afterEach, beforeEach, vi } from 'vitest';
import type { ResolvedFrameConfig, FrameEvent, PaymentResult } from '../../protocol/frame-messages';
import type { PaymentModelDeps } from './payment-model';

export const CONFIG: ResolvedFrameConfig = {
  publishableKey: 'rail_open_test_' + 'k'.repeat(32),
  clientSecret: 'pay_abc123_secret_' + 'S'.repeat(20),
  apiBaseUrl: 'https://api.rail.test',
  vaultBaseUrl: 'https://api.rail.test',
  locale: 'en',
};

export const PAYMENT: PaymentResult = { payment_id: 'pay_abc123', status: 'requires_payment_method', amount: 10050, currency: 'INR' };
export const METHODS = { currency: 'INR', payment_methods: [{ payment_method: 'upi', payment_method_types: [{ payment_method_type: 'upi_collect' }] }] };

export const VAULT_TOKEN = {
  psp_token: 'tok_' + 'A'.repeat(20),
  expires_at: '2030-01-01T00:00:00Z',
  card: { last4: '4242', card_network: 'Visa', exp_month: '12', exp_year: '2030' },
};

export const ALL_METHODS = {
  currency: 'EUR',
  payment_methods: [
    { payment_method: 'crypto', payment_method_types: [{ payment_method_type: 'crypto_currency' }] },
    { payment_method: 'card', payment_method_types: [{ payment_method_type: 'credit' }, { payment_method_type: 'debit' }] },
    { payment_method: 'upi', payment_method_types: [{ payment_method_type: 'upi_collect' }, { payment_method_type: 'upi_qr' }] },
    { payment_method: 'bank_transfer', payment_method_types: [{ payment_method_type: 'local_bank_transfer' }] },
    { payment_method: 'mobile_payment', payment_method_types: [{ payment_method_type: 'momo' }, { payment_method_type: 'direct_carrier_billing' }] },
  ],
};

/** Lets the requests the model started in the background (the wallet session tokens) answer. */
export const backgroundRequestsAnswered = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });

type Route = (request: { url: string; method: string; body: unknown }) => Response | Promise<Response>;

/** A fetch that answers the frame's API calls from handlers, recording every request. */
export function fakeApi(
  overrides: {
    methods?: Route;
    retrieve?: Route;
    confirm?: Route;
    vault?: Route;
    threeDs?: Route;
    completeAuthorize?: Route;
    sessionTokens?: Route;
    walletOrder?: Route;
  } = {},
) {
  const requests: { url: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    requests.push({ url, method, headers: (init?.headers ?? {}) as Record<string, string>, body });
    const request = { url, method, body };
    if (url.includes('/account/payment_methods')) {
      // expand_payment=true: the list and the payment in one answer, or the first error of the two.
      const methods = await (overrides.methods ?? (() => json(METHODS)))(request);
      if (!url.includes('expand_payment=true') || !methods.ok) return methods;
      const payment = await (overrides.retrieve ?? (() => json(PAYMENT)))(request);
      if (!payment.ok) return payment;
      return json({ ...(await methods.json()), payment: await payment.json() });
    }
    if (url.endsWith('/vault/tokens')) return (overrides.vault ?? (() => json(VAULT_TOKEN)))(request);
    const missing = () => json({ error: { type: 'invalid_request', code: 'ERR_2004', message: `No fake route for ${method} ${url}` } }, 404);
    if (url.endsWith('/3ds/authentication')) return (overrides.threeDs ?? missing)(request);
    if (url.endsWith('/complete_authorize')) return (overrides.completeAuthorize ?? missing)(request);
    if (url.endsWith('/payments/session_tokens')) return (overrides.sessionTokens ?? missing)(request);
    if (url.endsWith('/post_session_tokens')) return (overrides.walletOrder ?? missing)(request);
    if (url.endsWith('/confirm')) return (overrides.confirm ?? (() => json({ ...PAYMENT, status: 'succeeded' })))(request);
    return (overrides.retrieve ?? (() => json(PAYMENT)))(request);
  }) as unknown as typeof globalThis.fetch;
  return { fetch, requests };
}

/** Model dependencies with a virtual clock: sleep advances `now` at once. */
export function modelDeps(fetch: typeof globalThis.fetch, config: ResolvedFrameConfig = CONFIG) {
  const events: FrameEvent[] = [];
  let clock = 1_700_000_000_000;
  const deps: PaymentModelDeps = {
    config,
    emit: (event) => events.push(event),
    fetch,
    sleep: async (ms) => {
      clock += ms;
    },
    now: () => clock,
  };
  return { deps, events, now: () => clock };
}

/** A container in the document for a test file's renders: attached before each test, unmounted and detached after it. */
export function renderTarget(): HTMLElement {
  const scratch = document.createElement('div');
  beforeEach(() => {
    document.body.appendChild(scratch);
  });
  afterEach(() => {
    render(null, scratch);
    scratch.remove();
  });
  return scratch;
}
