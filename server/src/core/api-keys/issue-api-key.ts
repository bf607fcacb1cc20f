/** A new API key: its plaintext (shown once) and the record stored for it (hash and non-secret prefix only). */
import type { ApiScope } from '../../../../protocol/api/keys';
import type { KeyType, Mode } from '../../../../protocol/ids';
import type { IdGenerator } from '../../kernel/ids';
import type { ApiKeyRecord } from '../../storage/accounts/records';
import { hashSecret } from '../auth/secrets';

/** Base62 characters after `rail_<type>_<mode>_` in generated keys (the spec's minimum is 32). */
export const GENERATED_KEY_SECRET_LENGTH = 40;
/** Characters of the secret part kept in the non-secret prefix. */
const PREFIX_SECRET_CHARS = 6;

export interface ApiKeyInput {
  accountId: string;
  mode: Mode;
  keyType: KeyType;
  name: string;
  scopes: readonly ApiScope[];
  replacesKeyId: string | null;
  createdAt: Date;
  /** A plaintext chosen elsewhere (bootstrap's keys from the environment); absent: a new random one. */
  plaintext?: string;
}

export function issueApiKey(ids: IdGenerator, input: ApiKeyInput): { plaintext: string; record: ApiKeyRecord } {
  const plaintext = input.plaintext ?? `rail_${input.keyType}_${input.mode}_${ids.secret(GENERATED_KEY_SECRET_LENGTH)}`;
  return {
    plaintext,
    record: {
      keyId: ids.id('apiKey'),
      accountId: input.accountId,
      mode: input.mode,
      keyType: input.keyType,
      name: input.name,
      prefix: keyPrefix(plaintext),
      keyHash: hashSecret(plaintext),
      createdAt: input.createdAt,
      revokedAt: null,
      expiresAt: null,
      scopes: input.scopes,
      replacesKeyId: input.replacesKeyId,
    },
  };
}

/** The non-secret prefix kept with a key's hash: `rail_full_test_` plus the first 6 secret characters. */
export function keyPrefix(key: string): string {
  const parts = /^(rail_(?:full|open)_(?:test|live)_)(.*)$/.exec(key);
  return parts ? `${parts[1]}${(parts[2] ?? '').slice(0, PREFIX_SECRET_CHARS)}` : '';
}
