import type { ConnectFrame } from './frame-connection';

/** Everything the runtime takes from its surroundings, injected so tests can replace the frame and navigation. */
export interface RuntimeEnv {
  /** js_url's origin: where the frame lives, and the only origin the host accepts frame messages from. */
  frameOrigin: string;
  /** `{js_origin}/frame/` */
  frameUrl: string;
  /** API base URL used when the merchant gives no customBackendUrl. */
  apiBaseUrl: string;
  frameTimeout: number;
  connectFrame: ConnectFrame;
  /** Top-level navigation (return_url, redirect_to_url). */
  navigate(url: string): void;
  fetch: typeof fetch;
}
