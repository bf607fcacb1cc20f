import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { CardDetails, detectCardNetwork } from './card-details';
import { CardVault } from './card-vault';
import { loadOrCreateVaultKey, parseVaultKey, VAULT_KEY_FILE, VaultCipher } from './vault-cipher';

const binding = { tokenId: 'tok_A', accountId: 'acc_1', mode: 'test', purpose: 'card' } as const;

describe('VaultCipher (AES-256-GCM)', () => {
  const cipher = new VaultCipher(randomBytes(32));

  test('round-trips, with a fresh IV each time', () => {
    const a = cipher.encrypt('4242424242424242', binding);
    const b = cipher.encrypt('4242424242424242', binding);
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
    expect(Buffer.from(a.split('.')[1] ?? '', 'base64url')).toHaveLength(12);
    expect(cipher.decrypt(a, binding)).toBe('4242424242424242');
  });

  test.each([
    ['another token', { ...binding, tokenId: 'tok_B' }],
    ['another account', { ...binding, accountId: 'acc_2' }],
    ['another mode', { ...binding, mode: 'live' }],
    ['the CVC column', { ...binding, purpose: 'cvc' as const }],
  ])('a ciphertext moved to %s does not decrypt', (_name, other) => {
    expect(() => cipher.decrypt(cipher.encrypt('secret', binding), other)).toThrow();
  });

  test('a tampered ciphertext or another key does not decrypt', () => {
    const stored = cipher.encrypt('secret', binding);
    const [v, iv, tag, body] = stored.split('.');
    const flipped = Buffer.from(body ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => cipher.decrypt([v, iv, tag, flipped.toString('base64url')].join('.'), binding)).toThrow();
    expect(() => new VaultCipher(randomBytes(32)).decrypt(stored, binding)).toThrow();
    expect(() => cipher.decrypt('v2.a.b.c', binding)).toThrow(/format/);
  });

  test('a key must be 32 bytes', () => {
    expect(() => new VaultCipher(randomBytes(16))).toThrow();
    expect(parseVaultKey(randomBytes(32).toString('base64'))).toHaveProperty('key');
    expect(parseVaultKey(randomBytes(32).toString('base64url'))).toHaveProperty('key');
    expect(parseVaultKey(randomBytes(16).toString('base64'))).toHaveProperty('error');
    expect(parseVaultKey('not base64!')).toHaveProperty('error');
  });
});

describe('vault key', () => {
  test('generated once into the data directory with mode 0600, then reused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rail-vault-'));
    const first = await loadOrCreateVaultKey(undefined, dir);
    expect(first.source).toBe('generated');
    expect(statSync(join(dir, VAULT_KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = await loadOrCreateVaultKey(undefined, dir);
    expect(second.source).toBe('file');
    expect(second.key.equals(first.key)).toBe(true);
    expect(readFileSync(join(dir, VAULT_KEY_FILE), 'utf8').trim()).toBe(first.key.toString('base64'));
  });

  test('RAIL_VAULT_KEY wins over the file; a bad value is a config error', async () => {
    const key = randomBytes(32);
    expect(loadConfig({ RAIL_VAULT_KEY: key.toString('base64') }).vaultKey?.equals(key)).toBe(true);
    expect(loadConfig({}).vaultKey).toBeUndefined();
    expect(() => loadConfig({ RAIL_VAULT_KEY: randomBytes(31).toString('base64') })).toThrow(/RAIL_VAULT_KEY/);
    expect((await loadOrCreateVaultKey(key, '/nonexistent')).source).toBe('env');
  });
});

describe('CardDetails', () => {
  const card = new CardDetails({ number: '4242424242424242', cvc: '123', expMonth: '12', expYear: '2030', holderName: 'Ada' });

  test('never serializes or prints the number or CVC', () => {
    for (const text of [JSON.stringify({ card }), inspect(card), String(card), `${card}`]) {
      expect(text).not.toContain('4242424242424242');
      expect(text).not.toContain('123');
    }
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    logger.info({ card, err: new Error('x', { cause: card }) }, 'oops');
    expect(lines.join('')).not.toContain('4242424242424242');
    expect(card.revealNumber()).toBe('4242424242424242');
    expect(card.last4).toBe('4242');
  });

  test('the vault seals and opens it', () => {
    const vault = new CardVault(new VaultCipher(randomBytes(32)));
    const sealed = vault.seal({
      accountId: 'acc_1',
      mode: 'test',
      tokenId: 'tok_1',
      paymentId: 'pay_1',
      card: { number: '4242424242424242', cvc: '123', expMonth: '12', expYear: '2030', holderName: 'Ada' },
      createdAt: new Date(),
      expiresAt: new Date(),
    });
    expect(JSON.stringify(sealed)).not.toContain('4242424242424242');
    const opened = vault.open(sealed);
    expect([opened.revealNumber(), opened.revealCvc(), opened.holderName]).toEqual(['4242424242424242', '123', 'Ada']);
    expect(vault.open({ ...sealed, cvcCiphertext: null }).revealCvc()).toBeNull();
  });

  test.each([
    ['4242424242424242', 'Visa'],
    ['5555555555554444', 'Mastercard'],
    ['2223003122003222', 'Mastercard'],
    ['378282246310005', 'AmericanExpress'],
    ['6011111111111117', 'Discover'],
    ['3566002020360505', 'JCB'],
    ['36227206271667', 'DinersClub'],
    ['6200000000000005', 'UnionPay'],
    ['6521500000000001', 'RuPay'],
    ['5085000000000000', 'RuPay'],
    ['6759649826438453', 'Maestro'],
    ['9999999999999995', null],
  ])('network of %s is %s', (number, network) => {
    expect(detectCardNetwork(number)).toBe(network);
  });
});

test('log redaction covers the vault request body', () => {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
  const body = { client_secret: 'pay_x_secret_y', card_number: '4242424242424242', card_cvc: '9183', card_holder_name: 'Ada Lovelace' };
  logger.info({ body, req: { body }, ...body, deep: { req: { body } } }, 'vault');
  const text = lines.join('');
  for (const secret of ['4242424242424242', '9183', 'Ada Lovelace', 'pay_x_secret_y']) expect(text).not.toContain(secret);
});
