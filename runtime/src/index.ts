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

/**
 * The script is served as built (one build, one SRI hash on every deployment), so it does not know the API's
 * base_url: the frame reads it from its own document, and the one call the page makes itself (retrievePayment)
 * asks the js listener that served this script, once per page.
 */
let deploymentApiBaseUrl: Promise<string> | undefined;
const loadDeploymentApiBaseUrl = (): Promise<string> =>
  (deploymentApiBaseUrl ??= window
    .fetch(jsOrigin + '/v1/config.json')
    .then((response) => response.json())
    .then((body: { api_base_url?: unknown }) => {
      if (typeof body?.api_base_url !== 'string') throw new Error('no api_base_url');
      return body.api_base_url;
    })
    .catch((error: unknown) => {
      deploymentApiBaseUrl = undefined;
      throw error;
    }));

const Rail: RailConstructor = (publishableKey, options) =>
  createRail(publishableKey, options, {
    frameOrigin,
    frameUrl: frameOrigin + '/frame/',
    ...(dev ? { apiBaseUrl: dev.apiBaseUrl } : {}),
    deploymentApiBaseUrl: loadDeploymentApiBaseUrl,
    frameTimeout: FRAME_TIMEOUT_MS,
    connectFrame,
    navigate: (url) => window.location.assign(url),
    fetch: (...args) => window.fetch(...args),
  });

window.Rail = Rail;
