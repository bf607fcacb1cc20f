import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadAccountSettings, SIMULATED_ACQUIRER_CURRENCIES } from '../config';
import { DEFAULT_ACCOUNT_SETTINGS, provisionedAdapter } from '../core/accounts/account-settings';
import { cryptoIds } from '../kernel/ids';
import { createSimulatorRegistry } from '../rails/simulator/registry';

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rail-account-')), 'account.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

const registry = createSimulatorRegistry({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080', walletOrderKey: Buffer.alloc(32, 7) });

test('the default account: no card rail; UPI and crypto simulated in test mode; bank transfer listed but not provisioned (ERR_3010); no live rail', () => {
  expect(DEFAULT_ACCOUNT_SETTINGS.rails.map((rail) => rail.rail)).toEqual(['upi', 'bank_transfer', 'crypto']);
  for (const rail of DEFAULT_ACCOUNT_SETTINGS.rails) {
    const expected = rail.rail === 'bank_transfer' ? undefined : rail.rail;
    expect(provisionedAdapter(rail, registry, 'test')?.rail).toBe(expected);
    expect(provisionedAdapter(rail, registry, 'live')).toBeUndefined();
  }
});

test('"card_acquirer": "simulator" adds a test-mode card rail to the default rails', () => {
  const settings = loadAccountSettings(configFile({ card_acquirer: 'simulator', merchant_origins: ['https://shop.example'] }));
  const card = settings.rails.find((rail) => rail.rail === 'card');
  expect(card).toMatchObject({ currencies: SIMULATED_ACQUIRER_CURRENCIES, modes: ['test'] });
  expect(card && provisionedAdapter(card, registry, 'test')?.connector).toBe('card_simulator');
  expect(settings.merchantOrigins).toEqual(['https://shop.example']);
});

test('a rails list switches crypto and bank transfer on in test mode', () => {
  const settings = loadAccountSettings(
    configFile({
      rails: [
        { rail: 'crypto', currencies: ['USD'], modes: ['test'] },
        { rail: 'bank_transfer', currencies: ['KES'], modes: ['test'] },
        { rail: 'card', currencies: ['EUR'], modes: ['test'] },
      ],
      card_acquirer: 'simulator',
    }),
  );
  expect(settings.rails.map((rail) => [rail.rail, provisionedAdapter(rail, registry, 'test')?.connector])).toEqual([
    ['crypto', 'crypto_simulator'],
    ['bank_transfer', 'bank_transfer_simulator'],
    ['card', 'card_simulator'],
  ]);
  expect(() => loadAccountSettings(configFile({ card_acquirer: 'acme' }))).toThrow(/card_acquirer/);
});
