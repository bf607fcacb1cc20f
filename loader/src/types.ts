/**
 * Public types of the Rail runtime served at `{js_url}/v1/` (the global `Rail`), shipped with the loader package.
 * Self-contained on purpose, so the published `.d.ts` needs nothing else; loader/src/types.test-d.ts proves they
 * match protocol/ (the frame <-> runtime contract and the API error shape).
 */

export type RailLocale = 'en' | 'fr' | 'hi' | 'es';

/** Theme plus CSS-like variables and a rules map, applied inside the frame. */
export interface RailAppearance {
  theme?: 'default' | 'night' | 'flat';
  variables?: Partial<
    Record<
      | 'colorPrimary'
      | 'colorBackground'
      | 'colorText'
      | 'colorDanger'
      | 'fontFamily'
      | 'fontSizeBase'
      | 'borderRadius'
      | 'spacingUnit',
      string
    >
  >;
  /**
   * Selector (`.Root`, `.Amount`, `.Tab`, `.Tab--selected`, `.Label`, `.Input`, `.Input--invalid`, `.Input:focus`,
   * `.Hint`, `.Error`, `.Notice`, `.Wait`, `.Action`, `.Button`) to camelCase declarations.
   */
  rules?: Record<string, Record<string, string>>;
}

/** The error shape of every failure: the API's `{type, message, code, field_name?}`. Branch on `code`. */
export interface RailError {
  type: string;
  message: string;
  code: string;
  field_name?: string;
  /** confirmPayment of a payment that ended without succeeding (type `payment_failed`, code ERR_6007): the payment. */
  payment?: RailPayment;
  /** The rail's reason for that payment (its error_code), when it gave one. */
  decline_code?: string;
}

/** The payment object as the API returns it (never holds card data). */
export interface RailPayment {
  payment_id: string;
  status: string;
  amount: number;
  currency: string;
  next_action?: { type: string; [field: string]: unknown } | null;
  error_code?: string | null;
  error_message?: string | null;
  [field: string]: unknown;
}

export interface RailOptions {
  /** API base URL the frame calls; defaults to the API that served the runtime script. */
  customBackendUrl?: string;
  /** Not supported yet: Rail() throws an IntegrationError (ERR_6002) when it is set (docs/runtime.md). */
  profileId?: string;
  /** Milliseconds to wait for a frame handshake before `loaderror` (default 15000). */
  frameTimeout?: number;
}

/** A stylesheet of @font-face rules (e.g. Google Fonts), https only (http on localhost). */
export interface RailCssFontSource {
  cssSrc: string;
}

/** One font face: `src` is a CSS `url(...)` (https only, http on localhost), the rest @font-face descriptors. */
export interface RailCustomFontSource {
  family: string;
  src: string;
  weight?: string;
  style?: string;
  display?: 'auto' | 'block' | 'swap' | 'fallback' | 'optional';
  unicodeRange?: string;
}

export interface ElementsOptions {
  clientSecret: string;
  appearance?: RailAppearance;
  locale?: RailLocale;
  /** Fonts the frame loads, usable in `appearance.variables.fontFamily` (set at creation only). */
  fonts?: Array<RailCssFontSource | RailCustomFontSource>;
  /** The skeleton shown while the frame loads: `auto` (default) and `always` show it, `never` hides it. */
  loader?: 'auto' | 'always' | 'never';
}

/** locale, appearance and clientSecret can change live; fonts and loader are fixed at creation. */
export type ElementsUpdateOptions = Partial<Pick<ElementsOptions, 'clientSecret' | 'appearance' | 'locale'>>;

export interface PaymentElementOptions {
  /** Accessible title of the iframe (default "Secure payment input frame"). */
  title?: string;
}

export interface ChangeEvent {
  elementType: 'payment';
  complete: boolean;
  empty: boolean;
  value: { type: string };
}

export interface ElementEventMap {
  ready: { elementType: 'payment' };
  change: ChangeEvent;
  focus: { elementType: 'payment' };
  blur: { elementType: 'payment' };
  escape: { elementType: 'payment' };
  /**
   * Enter pressed in a field of the frame. The runtime also submits the `<form>` around the element the way a
   * native input would (its default button, unless disabled; requestSubmit, so form validation runs).
   */
  submit: { elementType: 'payment' };
  loaderstart: { elementType: 'payment' };
  loaderror: { elementType: 'payment'; error: RailError };
}

export type ElementEventType = keyof ElementEventMap;
export type ElementHandler<T extends ElementEventType> = (event: ElementEventMap[T]) => void;

export interface PaymentElement {
  /** Inserts the frame into the container (a CSS selector or an element). Calling it while mounted does nothing. */
  mount(container: string | HTMLElement): PaymentElement;
  /** Removes the frame and closes its connection; the element can be mounted again. */
  unmount(): PaymentElement;
  /** Unmounts and frees every listener; the element cannot be used afterwards. */
  destroy(): void;
  update(options: PaymentElementOptions): PaymentElement;
  focus(): PaymentElement;
  blur(): PaymentElement;
  clear(): PaymentElement;
  on<T extends ElementEventType>(type: T, handler: ElementHandler<T>): PaymentElement;
  once<T extends ElementEventType>(type: T, handler: ElementHandler<T>): PaymentElement;
  /** Without a handler, removes every handler of that type. */
  off<T extends ElementEventType>(type: T, handler?: ElementHandler<T>): PaymentElement;
}

export interface Elements {
  create(type: 'payment', options?: PaymentElementOptions): PaymentElement;
  getElement(type: 'payment'): PaymentElement | null;
  /** locale, appearance and clientSecret take effect live in every mounted element. */
  update(options: ElementsUpdateOptions): Elements;
}

export interface ConfirmPaymentOptions {
  elements: Elements;
  confirmParams?: { return_url?: string };
  /** `if_required` (default): navigate only when the payment needs a redirect. `always`: go to return_url. */
  redirect?: 'always' | 'if_required';
}

/** Never rejects: a payment object (any status, check `status`) or an error. */
export type ConfirmPaymentResult = { payment: RailPayment; error?: undefined } | { error: RailError; payment?: undefined };

export interface Rail {
  elements(options: ElementsOptions): Elements;
  confirmPayment(options: ConfirmPaymentOptions): Promise<ConfirmPaymentResult>;
  retrievePayment(clientSecret: string): Promise<ConfirmPaymentResult>;
}

/** The global `window.Rail`: call it with a publishable key (`rail_open_test_...`). */
export type RailConstructor = (publishableKey: string, options?: RailOptions) => Rail;

declare global {
  interface Window {
    Rail?: RailConstructor;
  }
}
