/**
 * The frame <-> runtime contract, carried by penpal over postMessage with pinned origins on both sides.
 * No type here has a card field: card data stays in the frame and the vault (a type test asserts this).
 */
import type { ApiErrorObject } from './errors';
import type { NextAction, PaymentStatus } from './payments';

export type Locale = 'en' | 'fr' | 'hi' | 'es';

/** Appearance of the element: theme plus CSS-like variables and a rules map (Stripe's Appearance shape). */
export interface Appearance {
  theme?: 'default' | 'night' | 'flat';
  variables?: Partial<Record<
    'colorPrimary' | 'colorBackground' | 'colorText' | 'colorDanger' | 'fontFamily' | 'fontSizeBase' | 'borderRadius' | 'spacingUnit',
    string
  >>;
  rules?: Record<string, Record<string, string>>;
}

/** What the host sends the frame once the handshake is done, and again (partially) on update. */
export interface FrameConfig {
  publishableKey: string;
  clientSecret: string;
  /** The API origin the frame calls (customBackendUrl or the server's base_url). */
  apiBaseUrl: string;
  appearance?: Appearance;
  locale?: Locale;
  profileId?: string;
}

/** The payment as the page sees it after confirm: the API's payment object, which never holds card data. */
export interface PaymentResult {
  payment_id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  next_action?: NextAction | null;
  error_code?: string | null;
  error_message?: string | null;
  [field: string]: unknown;
}

export type ConfirmOutcome = { payment: PaymentResult } | { error: ApiErrorObject };

export interface ConfirmRequest {
  return_url?: string;
  redirect: 'always' | 'if_required';
}

/** Methods the frame exposes to the host (verbs). */
export interface FrameMethods {
  configure(config: FrameConfig): void;
  update(config: Partial<Omit<FrameConfig, 'publishableKey'>>): void;
  confirm(request: ConfirmRequest): ConfirmOutcome;
  focus(): void;
  blur(): void;
  clear(): void;
}

/** Value summary in change events: the method type only, never what was typed. */
export interface ChangeValue {
  type: string;
}

/** Events the frame emits to the host, a discriminated union on `type`. */
export type FrameEvent =
  | { type: 'ready' }
  | { type: 'change'; complete: boolean; empty: boolean; value: ChangeValue }
  | { type: 'focus' }
  | { type: 'blur' }
  | { type: 'escape' }
  | { type: 'resize'; height: number }
  | { type: 'loaderror'; error: ApiErrorObject };

/** Methods the host exposes to the frame. */
export interface HostMethods {
  emit(event: FrameEvent): void;
}
