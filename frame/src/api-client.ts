import type { ExternalThreeDsAuthenticationResponse, PostSessionTokensResponse, SessionTokenResponse } from '../../protocol/api/card-ops';
import type { ApiErrorObject } from '../../protocol/errors';
import type { PaymentResult, ResolvedFrameConfig } from '../../protocol/frame-messages';
import { paymentIdFromClientSecret } from '../../protocol/ids';
import { apiGetUrl, loadPaths } from './load-requests';
import type { VaultCard } from './card-model';
import { clientError } from './errors';

/** What a confirm sends besides client_secret and return_url. */
export interface ConfirmMethod {
  payment_method: string;
  payment_method_type: string;
  payment_method_data: Record<string, unknown>;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiErrorObject };

/** POST /vault/tokens answer: an opaque single-use token and what may be shown of the card (never its number). */
export interface VaultToken {
  psp_token: string;
  expires_at: string;
  card: { last4: string; card_network: string | null; exp_month: string; exp_year: string };
}

function isVaultToken(value: unknown): value is VaultToken {
  return typeof (value as VaultToken | null)?.psp_token === 'string';
}

/** One saved method of the payment's customer (GET /customers/payment_methods). */
export interface SavedMethod {
  payment_token: string;
  payment_method: string;
  payment_method_type: string | null;
  recurring_enabled: boolean;
  card: { last4_digits: string | null } | null;
}

export interface SavedMethodList {
  customer_payment_methods: SavedMethod[];
}

/** A post_session_tokens answer that opened a wallet order: the order the client confirms with. */
type WalletOrder = PostSessionTokensResponse & {
  next_action: Extract<NonNullable<PostSessionTokensResponse['next_action']>, { type: 'invoke_sdk_client' }>;
};

export interface PaymentMethodList {
  currency?: string;
  payment_methods: { payment_method: string; payment_method_types?: { payment_method_type: string }[] }[];
}

/** GET /account/payment_methods with expand_payment=true: the methods and the payment they are for. */
export interface PaymentMethodsWithPayment extends PaymentMethodList {
  payment: PaymentResult;
}

function isPayment(value: unknown): value is PaymentResult {
  const payment = value as PaymentResult | null;
  return !!payment && typeof payment.payment_id === 'string' && typeof payment.status === 'string';
}

/** Copies only the error fields of the contract, so nothing else the response holds travels on. */
function toApiError(error: Record<string, unknown>): ApiErrorObject {
  const result: ApiErrorObject = { type: String(error.type ?? 'api_error'), code: String(error.code), message: String(error.message ?? '') };
  if (typeof error.field_name === 'string') result.field_name = error.field_name;
  return result;
}

/** The calls the frame makes, with the publishable key and the payment's client_secret. */
export function createApiClient(fetchImpl: typeof fetch, config: ResolvedFrameConfig) {
  const paymentId = encodeURIComponent(paymentIdFromClientSecret(config.clientSecret) ?? 'invalid');
  const secret = encodeURIComponent(config.clientSecret);

  /** Sends a request and reads its answer: the checked body, or the error envelope's fields. */
  async function request<T>(send: () => Promise<Response>, check: (value: unknown) => value is T): Promise<ApiResult<T>> {
    let response: Response;
    try {
      response = await send();
    } catch {
      return { ok: false, error: clientError('ERR_6004', 'Could not reach the payments API.') };
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
    if (error && typeof error.code === 'string') return { ok: false, error: toApiError(error) };
    if (!response.ok || !check(body)) {
      return { ok: false, error: clientError('ERR_6004', `The payments API answered ${response.status} without a usable body.`) };
    }
    return { ok: true, value: body };
  }

  /** A GET: the key rides in its URL (apiGetUrl) with no header, so the browser sends it without a CORS preflight. */
  const get = <T>(path: string, check: (value: unknown) => value is T) => request(() => fetchImpl(apiGetUrl(config, path)), check);

  /** A POST: the payment's client_secret first in its JSON body, the key in the api-key header. */
  const post = <T>(path: string, check: (value: unknown) => value is T, body: object, base = config.apiBaseUrl) =>
    request(
      () =>
        fetchImpl(base + path, {
          method: 'POST',
          headers: { 'api-key': config.publishableKey, 'content-type': 'application/json' },
          body: JSON.stringify({ client_secret: config.clientSecret, ...body }),
        }),
      check,
    );

  const load = loadPaths(config.clientSecret);
  return {
    /** The methods and the payment in one request (the boot script started it). */
    loadPaymentAndMethods: () =>
      get(load.load, (value): value is PaymentMethodsWithPayment =>
        Array.isArray((value as PaymentMethodList | null)?.payment_methods) && isPayment((value as PaymentMethodsWithPayment).payment),
      ),
    retrievePayment: () => get(load.payment, isPayment),
    /** The saved methods of the payment's customer (none for a guest). */
    listSavedMethods: () =>
      get(`/customers/payment_methods?client_secret=${secret}`, (value): value is SavedMethodList =>
        Array.isArray((value as SavedMethodList | null)?.customer_payment_methods),
      ),
    /** Confirms with a saved method: its payment_token, no payment method data. */
    confirmSaved: (paymentToken: string, returnUrl: string | undefined) =>
      post(`/payments/${paymentId}/confirm`, isPayment, { payment_token: paymentToken, ...(returnUrl ? { return_url: returnUrl } : {}) }),
    /** Confirms with the chosen method; `payment_method_data` never holds card data (only a psp_token). */
    confirm: (method: ConfirmMethod, returnUrl: string | undefined) =>
      post(`/payments/${paymentId}/confirm`, isPayment, { ...method, ...(returnUrl ? { return_url: returnUrl } : {}) }),
    /**
     * External 3DS (next_action three_ds_invoke): the browser authenticates on this payment's own path of the API it
     * was configured with, never at a URL taken from a response. This frame runs no 3DS method (comp_ind U).
     */
    authenticateThreeDs: () =>
      post(
        `/payments/${paymentId}/3ds/authentication`,
        (value): value is ExternalThreeDsAuthenticationResponse => typeof (value as ExternalThreeDsAuthenticationResponse | null)?.trans_status === 'string',
        { device_channel: 'BRW', threeds_method_comp_ind: 'U' },
      ),
    completeAuthorize: () => post(`/payments/${paymentId}/complete_authorize`, isPayment, {}),
    /** Session tokens of the wallets the list offers; a wallet without one is not shown. */
    walletSessionTokens: (wallets: string[]) =>
      post(
        '/payments/session_tokens',
        (value): value is SessionTokenResponse => Array.isArray((value as SessionTokenResponse | null)?.session_token),
        { payment_id: paymentIdFromClientSecret(config.clientSecret), wallets },
      ),
    /** Opens the wallet order (PayPal) that the confirm then names. */
    openWalletOrder: (wallet: string) =>
      post(
        `/payments/${paymentId}/post_session_tokens`,
        (value): value is WalletOrder => {
          const action = (value as PostSessionTokensResponse | null)?.next_action;
          return action?.type === 'invoke_sdk_client' && typeof action.next_action_data.order_id === 'string';
        },
        { payment_method: 'wallet', payment_method_type: wallet },
      ),
    /**
     * The only request that carries card data: from this frame (js_url's origin) to the vault of the deployment that
     * served it (never customBackendUrl), which answers a single-use psp_token. The card is serialized here only.
     */
    createVaultToken: (card: VaultCard) =>
      post('/vault/tokens', isVaultToken, { ...card }, config.vaultBaseUrl),
  };
}
export type ApiClient = ReturnType<typeof createApiClient>;
