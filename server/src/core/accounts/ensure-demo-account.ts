/**
 * The demo checkout's own test account (README "Run it"): every rail the simulators play, in test mode only, so the
 * demo can show cards (3DS included), UPI, crypto, bank transfer and mobile money while the default account keeps
 * the spec's rails. Created on the demo's first request, idempotently (unique slug, insert-or-nothing), so restarts
 * and several instances find the same account.
 */
import { createHmac } from 'node:crypto';
import { DEFAULT_KEY_SCOPES } from '../../../../protocol/api/keys';
import type { KeyType } from '../../../../protocol/ids';
import type { AccountSettings, RailCapabilities } from '../../kernel/account-settings-types';
import type { Clock } from '../../kernel/clock';
import type { IdGenerator } from '../../kernel/ids';
import type { Store } from '../../storage/stores';
import { GENERATED_KEY_SECRET_LENGTH, issueApiKey } from '../api-keys/issue-api-key';

export const DEMO_ACCOUNT_SLUG = 'demo';

const NONE: RailCapabilities = { refunds: false, metadataUpdates: false, recurring: false, manualCapture: false, disputes: false };

/** Every simulator rail, test mode only: this account can never take a live payment. */
export const DEMO_ACCOUNT_SETTINGS: AccountSettings = {
  merchantName: 'Rail demo store',
  merchantOrigins: [],
  allowLocalhostFrameAncestors: true,
  rails: [
    { rail: 'upi', currencies: ['INR'], modes: ['test'], capabilities: { test: { ...NONE, refunds: true }, live: NONE } },
    { rail: 'card', currencies: ['INR', 'EUR', 'USD', 'GBP'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
    { rail: 'crypto', currencies: ['EUR', 'USD', 'GBP'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
    { rail: 'bank_transfer', currencies: ['KES', 'GHS', 'TZS', 'UGX'], modes: ['test'], capabilities: { test: NONE, live: NONE } },
  ],
};

export interface DemoAccountKeys {
  accountId: string;
  testSecretKey: string;
  testPublishableKey: string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The demo account's keys are derived from the default account's test secret key (HMAC), so every instance and
 * every restart computes the same pair without storing a plaintext, and nobody can guess them without that key.
 */
export function demoKey(seedSecretKey: string, keyType: KeyType): string {
  const digest = createHmac('sha512', seedSecretKey).update(`rail demo account ${keyType} key`).digest();
  let secret = '';
  for (let index = 0; index < GENERATED_KEY_SECRET_LENGTH; index += 1) secret += BASE62[digest[index]! % 62];
  return `rail_${keyType}_test_${secret}`;
}

export async function ensureDemoAccount(deps: { store: Store; clock: Clock; ids: IdGenerator }, seedSecretKey: string): Promise<DemoAccountKeys> {
  const now = deps.clock.now();
  await deps.store.accounts.insertAccount({
    accountId: deps.ids.id('account'),
    slug: DEMO_ACCOUNT_SLUG,
    name: DEMO_ACCOUNT_SETTINGS.merchantName,
    settings: DEMO_ACCOUNT_SETTINGS,
    createdAt: now,
  });
  const account = await deps.store.accounts.findAccountBySlug(DEMO_ACCOUNT_SLUG);
  if (account === undefined) throw new Error('demo account missing after insert');
  // A server upgraded with more simulator rails offers them on its next start.
  if (JSON.stringify(account.settings.rails) !== JSON.stringify(DEMO_ACCOUNT_SETTINGS.rails)) {
    await deps.store.accounts.updateAccountSettings(account.accountId, { ...account.settings, rails: DEMO_ACCOUNT_SETTINGS.rails });
  }
  await deps.store.profiles.insertProfile({ profileId: deps.ids.id('profile'), accountId: account.accountId, name: 'default', isDefault: true, createdAt: now });
  const keys = { testSecretKey: demoKey(seedSecretKey, 'full'), testPublishableKey: demoKey(seedSecretKey, 'open') };
  for (const [plaintext, keyType, name] of [
    [keys.testSecretKey, 'full', 'demo test secret key'],
    [keys.testPublishableKey, 'open', 'demo test publishable key'],
  ] as const) {
    const { record } = issueApiKey(deps.ids, { accountId: account.accountId, mode: 'test', keyType, name, scopes: DEFAULT_KEY_SCOPES, replacesKeyId: null, createdAt: now, plaintext });
    await deps.store.apiKeys.insertApiKey(record);
  }
  return { accountId: account.accountId, ...keys };
}
