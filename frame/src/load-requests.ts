import type { ResolvedFrameConfig } from '../../protocol/frame-messages';
import { PUBLISHABLE_KEY_QUERY_NAME, paymentIdFromClientSecret } from '../../protocol/ids';

/**
 * The frame's GETs of a payment: `load`, the one request it needs before it can show anything (the methods and,
 * expanded, the payment itself: one request instead of two, and no preflight), and `payment`, which the wait
 * screens poll.
 */
export function loadPaths(clientSecret: string): { load: string; payment: string } {
  const secret = encodeURIComponent(clientSecret);
  const paymentId = encodeURIComponent(paymentIdFromClientSecret(clientSecret) ?? 'invalid');
  return { load: `/account/payment_methods?client_secret=${secret}&expand_payment=true`, payment: `/payments/${paymentId}?client_secret=${secret}` };
}

/**
 * The URL of a GET of the frame (`path` has a query already): the publishable key rides in it as `key`. With no
 * custom header the GET is a CORS simple request, sent without an OPTIONS preflight (each client_secret makes a new
 * URL, so a preflight would never be cached). The frame's POSTs carry the key in the api-key header.
 */
export const apiGetUrl = (config: ResolvedFrameConfig, path: string): string =>
  `${config.apiBaseUrl}${path}&${PUBLISHABLE_KEY_QUERY_NAME}=${encodeURIComponent(config.publishableKey)}`;

/** The URL of the load GET, which the boot script starts and the app takes (withPrefetched matches it). */
export const loadUrl = (config: ResolvedFrameConfig): string => apiGetUrl(config, loadPaths(config.clientSecret).load);

/** Responses started before the frame app ran, by URL; each is handed out once. */
export type Prefetched = Map<string, Promise<Response>>;

/**
 * Starts the load GET at once, from the frame's small boot script, so it runs while the frame app downloads and
 * parses instead of after it.
 */
export function startLoadRequests(config: ResolvedFrameConfig, fetchImpl: typeof fetch): Prefetched {
  const url = loadUrl(config);
  const response = fetchImpl(url);
  // Handed out later; a failure is the taker's to report, not an unhandled rejection now.
  response.catch(() => {});
  return new Map([[url, response]]);
}

/** Where the frame document's inline head script (early-load.ts) leaves the load request it started. */
export const EARLY_LOAD_KEY = '__railEarlyLoad';
/** Set by the inline script when the document is loading itself again at a URL declaring its origins (params.ts). */
export const DECLARING_KEY = '__railDeclaring';
export type EarlyLoadWindow = Window & { [EARLY_LOAD_KEY]?: Prefetched; [DECLARING_KEY]?: true };

/** The load request the document's inline script started (handed out once), or undefined. */
export function takeEarlyLoad(win: EarlyLoadWindow): Prefetched | undefined {
  const started = win[EARLY_LOAD_KEY];
  delete win[EARLY_LOAD_KEY];
  return started instanceof Map ? started : undefined;
}

/** A fetch that answers a GET of a prefetched URL with its started response (once), and fetches anything else. */
export function withPrefetched(prefetched: Prefetched | undefined, fetchImpl: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : undefined;
    const started = url !== undefined && (init?.method ?? 'GET') === 'GET' ? prefetched?.get(url) : undefined;
    if (started === undefined) return fetchImpl(input, init);
    prefetched!.delete(url!);
    return started;
  };
}
