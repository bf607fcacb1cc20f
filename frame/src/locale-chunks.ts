import type { Locale } from '../../protocol/frame-messages';
import type { Messages } from './i18n';

/**
 * The other locales' messages, each a chunk of its own (4 KB each, Hindi 7 KB): a frame shows one locale, so it
 * downloads and compiles that one only. English is in the app chunk (i18n.ts). A module apart from i18n.ts, so the
 * boot script can start the configured locale's chunk beside the app's without carrying the English messages.
 */
export const LOCALE_CHUNKS: Record<Exclude<Locale, 'en'>, () => Promise<{ MESSAGES: Messages }>> = {
  fr: () => import('./locales/fr'),
  es: () => import('./locales/es'),
  hi: () => import('./locales/hi'),
};
