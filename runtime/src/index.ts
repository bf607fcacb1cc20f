/**
 * The script served at `{js_url}/v1/`: its only side effect is `window.Rail`.
 * @example
 * const rail = Rail('rail_open_test_...');
 * const elements = rail.elements({ clientSecret });
 * elements.create('payment').mount('#payment');
 * const { payment, error } = await rail.confirmPayment({ elements, confirmParams: { return_url }, redirect: 'if_required' });
 */
import type { RailConstructor } from '../../loader/src/types';
import { connectFrame } from './frame-connection';
import { createRail } from './rail';

// The server replaces this placeholder with its public base_url when it serves the script.
const API_BASE_URL = '__RAIL_API_BASE_URL__';
const FRAME_TIMEOUT_MS = 15_000;

// Captured synchronously: currentScript is only set while this script runs.
const scriptSrc = (document.currentScript as HTMLScriptElement | null)?.src || window.location.href;
const jsOrigin = new URL(scriptSrc).origin;

/**
 * `npm run dev` only (scripts/dev.ts): the runtime runs as a vite module on the merchant page's origin, so the
 * page says where the frame and the API are. The production build drops this branch (import.meta.env.DEV is false).
 */
const dev = import.meta.env.DEV ? (window as { __RAIL_DEV__?: { frameOrigin: string; apiBaseUrl: string } }).__RAIL_DEV__ : undefined;
const frameOrigin = dev?.frameOrigin ?? jsOrigin;

const Rail: RailConstructor = (publishableKey, options) =>
  createRail(publishableKey, options, {
    frameOrigin,
    frameUrl: frameOrigin + '/frame/',
    // An unreplaced placeholder (dev server, file copy) falls back to the script's own origin.
    apiBaseUrl: dev?.apiBaseUrl ?? (/^__RAIL_/.test(API_BASE_URL) ? jsOrigin : API_BASE_URL),
    frameTimeout: FRAME_TIMEOUT_MS,
    connectFrame,
    navigate: (url) => window.location.assign(url),
    fetch: (...args) => window.fetch(...args),
  });

window.Rail = Rail;
