import type { ApiScope } from '../../../../protocol/api/keys';
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
  /** Set on a rotated key: the end of its grace window. */
  expiresAt: Date | null;
  scopes: readonly ApiScope[];
  /** The key this one replaced by rotation; null for a key created as such. */
  replacesKeyId: string | null;
}
