import type { FrameConfig, FrameConfigUpdate, Locale, ResolvedFrameConfig } from '../../protocol/frame-messages';
import { FRAME_CONNECT_PARAMETER, declaredConnectOrigins, frameConnectOrigin, frameConnectQuery } from '../../protocol/frame-url';

export interface FrameParams {
  /** The merchant page's origin: the only origin the frame talks to. */
  merchantOrigin: string;
  channel: string;
  config: ResolvedFrameConfig;
}

/** The meta tag in which the js listener writes its deployment's API base_url (frame/index.html). */
export const API_BASE_META = 'rail-api-base-url';

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * The API base_url the serving deployment wrote into the frame document, or undefined (a document not served by
 * the js listener, such as the vite dev server's, still holds the placeholder).
 */
export function documentApiBaseUrl(doc: Document): string | undefined {
  const content = doc.querySelector<HTMLMetaElement>(`meta[name="${API_BASE_META}"]`)?.content ?? '';
  return isHttpUrl(content) ? content : undefined;
}

const LOCALES: readonly Locale[] = ['en', 'fr', 'hi', 'es'];

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * Reads `#origin=...&channel=...&config=...` (runtime/src/payment-element.ts builds it); undefined when unusable.
 * The API base is the host's `config.apiBaseUrl` (customBackendUrl) when given, else `defaultApiBaseUrl` (the
 * deployment's, from the frame document); with neither the frame cannot work. The vault's is always the document's.
 */
export function parseFrameParams(hash: string, defaultApiBaseUrl?: string): FrameParams | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const merchantOrigin = params.get('origin') ?? '';
  const channel = params.get('channel') ?? '';
  if (!isOrigin(merchantOrigin) || !/^[\w-]{1,100}$/.test(channel)) return undefined;
  let raw: Partial<FrameConfig>;
  try {
    raw = JSON.parse(params.get('config') ?? '');
  } catch {
    return undefined;
  }
  if (!raw || typeof raw.publishableKey !== 'string' || typeof raw.clientSecret !== 'string') return undefined;
  const apiBaseUrl = raw.apiBaseUrl === undefined ? defaultApiBaseUrl : raw.apiBaseUrl;
  if (typeof apiBaseUrl !== 'string' || !isHttpUrl(apiBaseUrl)) return undefined;
  const config: ResolvedFrameConfig = {
    publishableKey: raw.publishableKey,
    clientSecret: raw.clientSecret,
    apiBaseUrl: apiBaseUrl.replace(/\/+$/, ''),
    // Card data goes to the deployment that served this document, never to a URL the page chose (docs/security.md).
    // The host's base only where the document names none (the vite dev server's, not served by the js listener).
    vaultBaseUrl: (defaultApiBaseUrl ?? apiBaseUrl).replace(/\/+$/, ''),
    locale: LOCALES.includes(raw.locale as Locale) ? raw.locale : 'en',
  };
  if (raw.appearance && typeof raw.appearance === 'object') config.appearance = raw.appearance;
  if (typeof raw.profileId === 'string') config.profileId = raw.profileId;
  if (Array.isArray(raw.fonts)) config.fonts = raw.fonts.filter((font) => font && typeof font === 'object').slice(0, 10);
  if (raw.loader === 'auto' || raw.loader === 'always' || raw.loader === 'never') config.loader = raw.loader;
  return { merchantOrigin, channel, config };
}

/** Keeps only well-typed fields of an update from the host (the host is the merchant page's runtime). */
export function sanitizeUpdate(update: unknown): FrameConfigUpdate {
  const raw = (update && typeof update === 'object' ? update : {}) as Record<string, unknown>;
  const clean: FrameConfigUpdate = {};
  if (typeof raw.clientSecret === 'string') clean.clientSecret = raw.clientSecret;
  if (LOCALES.includes(raw.locale as Locale)) clean.locale = raw.locale as Locale;
  if (raw.appearance && typeof raw.appearance === 'object') clean.appearance = raw.appearance as FrameConfigUpdate['appearance'];
  return clean;
}

/**
 * This frame's URL with the origins its config fetches from declared in its query, when the query lacks one of them
 * (a page pinned to a runtime release from before the query, protocol/frame-url.ts): the frame's CSP connect-src
 * would refuse those requests, so the document loads itself again at that URL. Undefined when nothing is missing.
 */
export function urlDeclaringOrigins(location: Pick<Location, 'pathname' | 'search' | 'hash'>, config: ResolvedFrameConfig): string | undefined {
  const declared = new URLSearchParams(location.search).getAll(FRAME_CONNECT_PARAMETER);
  // The deployment's API (the vault's base) is in the CSP without being declared.
  const deployment = frameConnectOrigin(config.vaultBaseUrl);
  const needed = declaredConnectOrigins(config).filter((origin) => origin !== deployment);
  if (needed.every((origin) => declared.includes(origin))) return undefined;
  return location.pathname + frameConnectQuery(needed) + location.hash;
}
