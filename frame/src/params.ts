import type { FrameConfig, FrameConfigUpdate, Locale } from '../../protocol/frame-messages';

export interface FrameParams {
  /** The merchant page's origin: the only origin the frame talks to. */
  merchantOrigin: string;
  channel: string;
  config: FrameConfig;
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

/** Reads `#origin=...&channel=...&config=...` (runtime/src/payment-element.ts builds it); undefined when unusable. */
export function parseFrameParams(hash: string): FrameParams | undefined {
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
  if (!raw || typeof raw.publishableKey !== 'string' || typeof raw.clientSecret !== 'string' || typeof raw.apiBaseUrl !== 'string') {
    return undefined;
  }
  const config: FrameConfig = {
    publishableKey: raw.publishableKey,
    clientSecret: raw.clientSecret,
    apiBaseUrl: raw.apiBaseUrl.replace(/\/+$/, ''),
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
