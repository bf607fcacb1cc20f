/**
 * What an account may do: its rails, their currencies, modes and capabilities, as data (api-conventions §8), never
 * as scattered branches. The default matches the spec's Rails table and "Behaviour of groups that are not live
 * today"; RAIL_ACCOUNT_CONFIG can switch capabilities on for test accounts.
 */
import type { Currency } from '../../../protocol/currency';
import type { Mode } from '../../../protocol/ids';
import type { CaptureMethod } from '../../../protocol/api/payments';
import type { RailAdapter, RailRegistry } from '../rails/rail-adapter';

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
   * mode that has an adapter. A rail listed but not provisioned answers ERR_3010 ("ready to switch on").
   */
  provisionedModes?: readonly Mode[];
}

export interface AccountSettings {
  merchantName: string;
  /** Origins allowed to frame the hosted frame (CSP frame-ancestors) for live pages. */
  merchantOrigins: readonly string[];
  /** Also allow http://localhost:* and http://127.0.0.1:* to frame the hosted frame (test integrations). */
  allowLocalhostFrameAncestors: boolean;
  rails: readonly RailSettings[];
}

const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };

/** The spec's Rails table as data. */
export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  merchantName: 'Rail Demo Merchant',
  merchantOrigins: [],
  allowLocalhostFrameAncestors: true,
  rails: [
    // UPI: live; automatic capture; refunds work in test mode through the simulator only.
    { rail: 'upi', currencies: ['INR'], modes: ['test', 'live'], capabilities: { test: { ...NONE, refunds: true }, live: NONE } },
    // Bank transfer / mobile money: ready to switch on (provider sandboxes); live needs credentials. Not
    // provisioned on the default account (ERR_3010); RAIL_ACCOUNT_CONFIG switches the test simulator on.
    {
      rail: 'bank_transfer',
      currencies: ['KES', 'GHS', 'TZS', 'UGX'],
      modes: ['test', 'live'],
      capabilities: { test: NONE, live: NONE },
      provisionedModes: [],
    },
    // Crypto: ready to switch on, as above (docs/open-points.md).
    { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test', 'live'], capabilities: { test: NONE, live: NONE }, provisionedModes: [] },
    // Cards: not enabled (needs a card acquirer).
  ],
};

/** The adapter serving a rail of the account in a mode, or undefined when the rail is not provisioned there. */
export function provisionedAdapter(rail: RailSettings, registry: RailRegistry, mode: Mode): RailAdapter | undefined {
  if (rail.provisionedModes !== undefined && !rail.provisionedModes.includes(mode)) return undefined;
  return registry.adapterFor(mode, rail.rail);
}

/** Capture methods the enabled rails support: they capture as they authorize (spec rule 5). */
export function supportedCaptureMethods(capabilities: RailCapabilities): readonly CaptureMethod[] {
  return capabilities.manualCapture
    ? ['automatic', 'sequential_automatic', 'manual', 'manual_multiple']
    : ['automatic', 'sequential_automatic'];
}
