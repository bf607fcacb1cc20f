/**
 * Account settings and files the suites share. Kept out of the test files so that importing one never defines
 * another file's tests.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ACCOUNT_SETTINGS } from '../core/accounts/account-settings';
import type { AccountSettings, RailCapabilities } from '../kernel/account-settings-types';

const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };

/** A test account with every rail switched on, as RAIL_ACCOUNT_CONFIG would set it (docs/simulator.md). */
export const ALL_RAILS_SETTINGS: AccountSettings = {
  ...DEFAULT_ACCOUNT_SETTINGS,
  rails: [
    { rail: 'upi', currencies: ['INR'], modes: ['test', 'live'], capabilities: { test: NONE, live: NONE } },
    { rail: 'card', currencies: ['USD', 'EUR', 'GBP', 'INR'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
    { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
    { rail: 'bank_transfer', currencies: ['KES', 'GHS', 'TZS', 'UGX'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
  ],
};

/** ALL_RAILS_SETTINGS with the simulated card acquirer taking manual capture and refunds in test mode. */
export const CARD_CAPTURE_SETTINGS: AccountSettings = {
  ...ALL_RAILS_SETTINGS,
  rails: ALL_RAILS_SETTINGS.rails.map((rail) => (rail.rail === 'card' ? { ...rail, capabilities: { test: { ...NONE, manualCapture: true, refunds: true }, live: NONE } } : rail)),
};

/** A demo page fixture with the placeholders the demo page carries. */
export function writeDemoPage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rail-demo-'));
  const path = join(dir, 'index.html');
  writeFileSync(path, '<script src="__RAIL_JS_URL__/v1/"></script><script>Rail("__RAIL_PUBLISHABLE_KEY__")</script>');
  return path;
}
