import type { FrameConfig } from './frame-messages';

/**
 * The query of the frame URL, `{js_url}/frame/?connect=<origin>&connect=<origin>#...`: the origins, besides its
 * deployment's API, that one mounted frame fetches from (the page's customBackendUrl and its font stylesheets). The
 * js listener lists them, and nothing else, in the frame document's CSP `connect-src` (docs/security.md). Absent
 * when there are none, so the usual frame URL is `{js_url}/frame/#...`.
 */
export const FRAME_CONNECT_PARAMETER = 'connect';

/** One customBackendUrl and at most ten font stylesheets (runtime/src/elements.ts). */
export const MAX_FRAME_CONNECT_ORIGINS = 11;

/** An http(s) origin as URL.origin writes it, with a DNS name or an IPv4 address: nothing that could end a CSP source. */
const CSP_SAFE_ORIGIN = /^https?:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/** The origin of an absolute http(s) URL, as a frame URL declares it; undefined for anything else (an IPv6 host too). */
export function frameConnectOrigin(url: string): string | undefined {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return undefined;
  }
  return CSP_SAFE_ORIGIN.test(origin) ? origin : undefined;
}

/**
 * The origins a frame with this config fetches from besides its deployment's API, as its URL declares them: the
 * customBackendUrl's, then each font stylesheet's, once each, at most MAX_FRAME_CONNECT_ORIGINS.
 */
export function declaredConnectOrigins(config: Pick<FrameConfig, 'apiBaseUrl' | 'fonts'>): string[] {
  const urls = [config.apiBaseUrl, ...(config.fonts ?? []).map((font) => (font && 'cssSrc' in font ? font.cssSrc : undefined))];
  const origins = new Set(urls.flatMap((url) => (typeof url === 'string' ? (frameConnectOrigin(url) ?? []) : [])));
  return [...origins].slice(0, MAX_FRAME_CONNECT_ORIGINS);
}

/** The query of a frame URL declaring `origins`: `?connect=...&connect=...`, or nothing without any. */
export const frameConnectQuery = (origins: readonly string[]): string =>
  origins.length === 0 ? '' : `?${new URLSearchParams(origins.map((origin) => [FRAME_CONNECT_PARAMETER, origin]))}`;
