import type { KeyType, Mode } from '../../../../protocol/ids';
import type { AccountSettings } from '../../kernel/account-settings-types';

export interface AccountRecord {
  accountId: string;
  /** Stable name used by bootstrap to find the default account ("default"). */
  slug: string;
  name: string;
  settings: AccountSettings;
  createdAt: Date;
}

export interface ProfileRecord {
  profileId: string;
  accountId: string;
  name: string;
  isDefault: boolean;
  createdAt: Date;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  mode: Mode;
  keyType: KeyType;
  name: string;
  /** Non-secret prefix shown in listings, e.g. `rail_full_test_AbC123`. */
  prefix: string;
  /** SHA-256 hex of the whole key; the plaintext is never stored. */
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

export interface OperatorRecord {
  operatorId: string;
  accountId: string;
  email: string;
  /** scrypt hash (see core/auth/secrets.ts). */
  passwordHash: string;
  /** TOTP secret, base32. */
  totpSecret: string;
  scopes: string[];
  createdAt: Date;
}
