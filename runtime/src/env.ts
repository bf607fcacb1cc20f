import type { ConnectFrame } from './frame-connection';

/** Everything the runtime takes from its surroundings, injected so tests can replace the frame and navigation. */
export interface RuntimeEnv {
  /** js_url's origin: where the frame lives, and the only origin the host accepts frame messages from. */
  frameOrigin: string;
  /** `{js_origin}/frame/` */
  frameUrl: string;
  /**
   * API base URL used when the merchant gives no customBackendUrl, when the runtime knows it up front (the dev
   * server). Otherwise the frame uses its deployment's (written into the frame document) and retrievePayment asks
   * `deploymentApiBaseUrl`: the built script holds no deployment value, so one build has one hash.
   */
  apiBaseUrl?: string;
  /** The API base_url of the deployment that served the script (`{js_url}/v1/config.json`), fetched once. */
  deploymentApiBaseUrl(): Promise<string>;
  frameTimeout: number;
  connectFrame: ConnectFrame;
  /** Top-level navigation (return_url, redirect_to_url). */
  navigate(url: string): void;
  fetch: typeof fetch;
}
