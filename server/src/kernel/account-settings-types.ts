/**
 * The shape of an account's settings: its rails, their currencies, modes and capabilities (api-conventions §8), and
 * its webhook endpoint. Ground floor: storage, rails and webhooks read these types; the defaults and the catalog of
 * rails live in core/accounts/account-settings.ts.
 */
import type { Currency } from '../../../protocol/currency';
import type { Mode } from '../../../protocol/ids';
import type { UsdtNetwork } from '../../../protocol/api/collect';

export type RailName = 'upi' | 'bank_transfer' | 'crypto' | 'card';

export interface RailCapabilities {
  refunds: boolean;
  metadataUpdates: boolean;
  recurring: boolean;
  manualCapture: boolean;
  disputes: boolean;
}

export interface RailSettings {
  rail: RailName;
  currencies: readonly Currency[];
  /** Modes in which the account may use the rail. */
  modes: readonly Mode[];
  /** Capabilities per mode (the simulator implements all of them in test mode when switched on). */
  capabilities: Record<Mode, RailCapabilities>;
  /**
   * Modes in which the rail is provisioned for the account (credentials, or the test simulator). Absent: every
   * mode that has an adapter. A rail listed but not provisioned answers ERR_3010 ("ready to switch on") and is not
   * in the payment-method list.
   */
  provisionedModes?: readonly Mode[];
  /** Smallest and largest payment amount (minor units) the rail takes; absent: no bound (payment-method list filter). */
  minimumAmount?: number;
  maximumAmount?: number;
}

export interface AccountSettings {
  merchantName: string;
  /** Origins allowed to frame the hosted frame (CSP frame-ancestors) for live pages. */
  merchantOrigins: readonly string[];
  /** Also allow http://localhost:* and http://127.0.0.1:* to frame the hosted frame (test integrations). */
  allowLocalhostFrameAncestors: boolean;
  rails: readonly RailSettings[];
  /** Where the account's webhook events go and the secret that signs them (docs/webhooks.md). */
  webhook?: WebhookEndpointSettings | undefined;
  /** The saved, verified USDT wallet: the only destination of Collect settlements (docs/collect.md). */
  usdtWallet?: UsdtWalletSettings | undefined;
  /**
   * The billing processor connected to the account's business profiles: `simulator` (test mode only) drives the
   * subscriptions family; absent, as on the default account, every subscription creation is refused.
   */
  billingProcessor?: 'simulator' | undefined;
}

export interface UsdtWalletSettings {
  network: UsdtNetwork;
  address: string;
}

/** The account's webhook endpoint: one for both modes (each envelope names its mode). */
export interface WebhookEndpointSettings {
  /** null: no endpoint; events are recorded with delivery_status no_endpoint. */
  url: string | null;
  /** `whsec_` + base64 of the key bytes (Standard Webhooks). */
  secret: string;
}
