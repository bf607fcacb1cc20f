// The variables @rail/vite gives the page under `vite dev`. Add `/// <reference types="@rail/vite/client" />`
// (or "types": ["@rail/vite/client"]) to type them.
interface ImportMetaEnv {
  /** The embedded server's test publishable key. */
  readonly VITE_RAIL_PUBLISHABLE_KEY?: string;
  /** The embedded server's js_url: load the runtime from `${VITE_RAIL_JS_URL}/v1/`. */
  readonly VITE_RAIL_JS_URL?: string;
  /** POST here (same origin) to create a payment; answers `{ payment_id, client_secret }`. */
  readonly VITE_RAIL_PAYMENT_ENDPOINT?: string;
}
