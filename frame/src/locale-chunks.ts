import type { Locale } from '../../protocol/frame-messages';

/**
 * The other locales' messages, each a chunk of its own (4 KB each, Hindi 7 KB): a frame shows one locale, so it
 * downloads and compiles that one only. English is in the app chunk (i18n.ts, which checks each chunk's messages
 * against its keys). A module apart from i18n.ts, so the boot script can start the configured locale's chunk beside
 * the app's without carrying the English messages.
 */
export const LOCALE_CHUNKS = {
  fr: () => import('./locales/fr'),
  es: () => import('./locales/es'),
  hi: () => import('./locales/hi'),
} satisfies Record<Exclude<Locale, 'en'>, () => Promise<{ MESSAGES: Record<string, string> }>>;
