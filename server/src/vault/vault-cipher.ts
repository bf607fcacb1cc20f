/**
 * Encryption at rest for the vault: AES-256-GCM (node:crypto), a random 96-bit IV per ciphertext, and additional
 * authenticated data binding each ciphertext to its token id, account, mode and purpose, so a ciphertext copied
 * to another row (or from the CVC column to the card column) fails to decrypt.
 *
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url). `v1` names the key generation, so a later key rotation
 * can decrypt old rows with the old key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const VAULT_KEY_BYTES = 32;
const VERSION = 'v1';

/** What a ciphertext is bound to. */
export interface CipherBinding {
  tokenId: string;
  accountId: string;
  mode: string;
  purpose: 'card' | 'cvc' | 'stored_card' | 'totp_secret';
}

function aad(binding: CipherBinding): Buffer {
  return Buffer.from(JSON.stringify([binding.purpose, binding.tokenId, binding.accountId, binding.mode]), 'utf8');
}

export class VaultCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== VAULT_KEY_BYTES) throw new Error(`the vault key must be ${VAULT_KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  encrypt(plaintext: string, binding: CipherBinding): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(binding));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Decrypts, or throws when the ciphertext was altered, moved to another binding, or made with another key. */
  decrypt(stored: string, binding: CipherBinding): string {
    const [version, iv, tag, body] = stored.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('vault ciphertext has an unknown format');
    }
    const decipher = createDecipheriv(ALGORITHM, this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(binding));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  toJSON(): string {
    return '[vault cipher]';
  }
}

/** Parses RAIL_VAULT_KEY (base64 of 32 bytes); returns an error message for a bad value. */
export function parseVaultKey(value: string): { key: Buffer } | { error: string } {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return { error: 'RAIL_VAULT_KEY must be base64' };
  const key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  if (key.length !== VAULT_KEY_BYTES) return { error: `RAIL_VAULT_KEY must decode to ${VAULT_KEY_BYTES} bytes (got ${key.length})` };
  return { key };
}

export const VAULT_KEY_FILE = 'vault-key';

/**
 * The vault key: RAIL_VAULT_KEY when set, else the key kept in `<dataDir>/vault-key` (base64, mode 0600),
 * generated on first start. Losing the file makes unused psp_tokens undecryptable (they are short-lived anyway).
 */
export async function loadOrCreateVaultKey(configured: Buffer | undefined, dataDir: string): Promise<{ key: Buffer; source: 'env' | 'file' | 'generated' }> {
  if (configured !== undefined) return { key: configured, source: 'env' };
  const path = join(dataDir, VAULT_KEY_FILE);
  try {
    const parsed = parseVaultKey((await readFile(path, 'utf8')).trim());
    if ('key' in parsed) return { key: parsed.key, source: 'file' };
    throw new Error(`${path}: ${parsed.error.replace('RAIL_VAULT_KEY', 'the vault key file')}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(VAULT_KEY_BYTES);
  await mkdir(dataDir, { recursive: true });
  // 'wx': never overwrite a key another instance wrote meanwhile.
  try {
    await writeFile(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateVaultKey(undefined, dataDir);
    throw error;
  }
  await chmod(path, 0o600);
  return { key, source: 'generated' };
}
