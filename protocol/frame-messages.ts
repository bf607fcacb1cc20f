/**
 * The frame <-> runtime contract, carried by penpal over postMessage with pinned origins on both sides.
 * No type here has a card field: card data stays in the frame and the vault (frame/src/no-card-fields.test-d.ts
 * asserts this). Types only: runtime/ and frame/ meet here without importing each other.
 *
 * The method and event maps are `type` aliases, not interfaces, so they satisfy penpal's `Methods` index signature.
 */
import type { ApiErrorObject } from './errors';
import type { NextAction, PaymentStatus } from './payments';

export type Locale = 'en' | 'fr' | 'hi' | 'es';

/** Appearance of the element: theme plus CSS-like variables and a rules map (Stripe's Appearance shape). */
export type Appearance = {
  theme?: 'default' | 'night' | 'flat';
  variables?: Partial<Record<AppearanceVariable, string>>;
  /**
   * Selector (`.Root`, `.Amount`, `.Tab`, `.Tab--selected`, `.Label`, `.Input`, `.Input--invalid`, `.Input:focus`,
   * `.Hint`, `.Error`, `.Notice`, `.Wait`, `.Action`, `.Button`) to camelCase declarations.
   */
  rules?: Record<string, Record<string, string>>;
};

export type AppearanceVariable =
  | 'colorPrimary'
  | 'colorBackground'
  | 'colorText'
  | 'colorDanger'
  | 'fontFamily'
  | 'fontSizeBase'
  | 'borderRadius'
  | 'spacingUnit';

/**
 * A font the frame may use: a stylesheet URL (`cssSrc`, e.g. Google Fonts) or one face (`family` + `src`, the
 * CSS `@font-face` descriptors). Only https URLs (http on localhost) are loaded.
 */
export type FontSource =
  | { cssSrc: string }
  | { family: string; src: string; weight?: string; style?: string; display?: string; unicodeRange?: string };

/** What the frame shows while it loads: `auto` and `always` a skeleton, `never` nothing. */
export type LoaderOption = 'auto' | 'always' | 'never';

/** What the host gives the frame (in the frame URL's fragment at load, and again, partially, on update). */
export type FrameConfig = {
  publishableKey: string;
  clientSecret: string;
  /**
   * The API origin the frame calls, for everything but the vault: the merchant's customBackendUrl. Absent: the
   * base_url of the deployment that serves the frame (the js listener writes it into the frame document), so the
   * runtime script itself carries no deployment value and one build has one hash everywhere.
   */
  apiBaseUrl?: string;
  appearance?: Appearance;
  locale?: Locale;
  profileId?: string;
  fonts?: FontSource[];
  loader?: LoaderOption;
};

/**
 * FrameConfig as the frame uses it: the API base settled (the host's, else the frame document's), and the vault's,
 * which the page cannot choose: the card goes to the deployment that served the frame, whatever customBackendUrl says.
 */
export type ResolvedFrameConfig = FrameConfig & { apiBaseUrl: string; vaultBaseUrl: string };

/** The part of FrameConfig that `elements.update()` may change live. */
export type FrameConfigUpdate = Partial<Pick<FrameConfig, 'clientSecret' | 'appearance' | 'locale'>>;

/**
 * Fragment parameters of the frame URL: `{js_origin}/frame/#origin=...&channel=...&config=...`.
 * `origin` is the merchant page's origin, the only origin the frame's penpal messenger accepts.
 * The fragment never reaches a server, so the frame document stays cacheable and the secret stays out of logs.
 */
export type FrameUrlParams = {
  origin: string;
  channel: string;
  /** JSON of FrameConfig. */
  config: string;
};

/** The payment as the page sees it after confirm: the API's payment object, which never holds card data. */
export type PaymentResult = {
  payment_id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  next_action?: NextAction | null;
  error_code?: string | null;
  error_message?: string | null;
  [field: string]: unknown;
};

/**
 * Codes the client side adds to the ERR catalog (runtime and frame errors that no server call produced).
 * - ERR_6001 integration_error: confirm or an element call needs a mounted payment element from this instance.
 * - ERR_6002 integration_error: a runtime argument is missing or has the wrong type or shape; field_name names it.
 * - ERR_6003 api_connection_error: the frame did not load or its handshake timed out.
 * - ERR_6004 api_connection_error: the frame could not reach the API (network failure or unreadable response).
 * - ERR_6005 validation_error: the customer's input is incomplete or invalid; field_name names the field.
 * - ERR_6006 integration_error: the element was destroyed while the call was in flight.
 */
export type { ClientErrorCode } from './client-errors';

/**
 * `focused`: the error names a field of the frame, which it focused. A cross-origin frame's own focus() does not
 * take the page's focus from the button that confirmed, so the host then focuses the iframe and has the frame focus
 * the field again (runtime/src/rail.ts); the frame keeps the field for the focus that arrives (frame/src/main.tsx).
 */
export type ConfirmOutcome = { payment: PaymentResult } | { error: ApiErrorObject; focused?: true };

export type ConfirmRequest = {
  return_url?: string;
  redirect: 'always' | 'if_required';
};

/** Methods the frame exposes to the host (verbs). */
export type FrameMethods = {
  update(config: FrameConfigUpdate): void;
  /** Validates the form, confirms the payment and follows wait screens until a final status or their deadline. */
  confirm(request: ConfirmRequest): Promise<ConfirmOutcome>;
  /** Focuses the input of `field` (a field_name of an error), or the selected method's first control. */
  focus(field?: string): void;
  blur(): void;
  clear(): void;
};

/** Value summary in change events: the method type only, never what was typed. */
export type ChangeValue = {
  type: string;
};

/** Events the frame emits to the host, a discriminated union on `type`. */
export type FrameEvent =
  | { type: 'ready' }
  | { type: 'change'; complete: boolean; empty: boolean; value: ChangeValue }
  | { type: 'focus' }
  | { type: 'blur' }
  | { type: 'escape' }
  /** Enter pressed in a field: the host submits the merchant form around the element (implicit submission). */
  | { type: 'submit' }
  | { type: 'resize'; height: number }
  | { type: 'loaderror'; error: ApiErrorObject };

/** Methods the host exposes to the frame. */
export type HostMethods = {
  emit(event: FrameEvent): void;
};
