import type { KeyType, Mode } from '../../../../protocol/ids';

export interface AccountsTable {
  account_id: string;
  slug: string;
  name: string;
  settings: string;
  created_at: string;
}

export interface ProfilesTable {
  profile_id: string;
  account_id: string;
  name: string;
  is_default: number;
  created_at: string;
}

export interface ApiKeysTable {
  key_id: string;
  account_id: string;
  mode: Mode;
  key_type: KeyType;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  /** JSON array of scopes. */
  scopes: string;
  replaces_key_id: string | null;
}

/** The accounts tables, as storage/schema.ts composes them into the database. */
export interface AccountsSchema {
  accounts: AccountsTable;
  business_profiles: ProfilesTable;
  api_keys: ApiKeysTable;
}
