import type { AccountSettings } from '../../kernel/account-settings-types';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { AccountRecord, ApiKeyRecord, OperatorRecord, ProfileRecord } from './records';

export interface AccountStore {
  insertAccount(account: AccountRecord): Promise<InsertResult>;
  findAccountBySlug(slug: string): Promise<AccountRecord | undefined>;
  updateAccountSettings(accountId: string, settings: AccountSettings): Promise<void>;
}

export interface ProfileStore {
  insertProfile(profile: ProfileRecord): Promise<InsertResult>;
  findDefaultProfile(accountId: string): Promise<ProfileRecord | undefined>;
  findProfile(accountId: string, profileId: string): Promise<ProfileRecord | undefined>;
}

export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord): Promise<InsertResult>;
  /** The key with this hash and its account, whatever its revocation state (the caller checks). */
  findApiKeyByHash(keyHash: string): Promise<{ key: ApiKeyRecord; account: AccountRecord } | undefined>;
  /** True when the account has an unrevoked, unexpired key of this mode. */
  hasUsableKeys(scope: Scope, now: Date): Promise<boolean>;
}

export interface OperatorStore {
  insertOperator(operator: OperatorRecord): Promise<InsertResult>;
  countOperators(accountId: string): Promise<number>;
}

/** The accounts stores, as storage/stores.ts composes them into Stores. */
export interface AccountsStores {
  accounts: AccountStore;
  profiles: ProfileStore;
  apiKeys: ApiKeyStore;
  operators: OperatorStore;
}
