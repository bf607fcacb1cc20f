import type { AccountSettings } from '../../kernel/account-settings-types';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { AccountRecord, ApiKeyRecord, ProfileRecord } from './records';

export interface AccountStore {
  insertAccount(account: AccountRecord): Promise<InsertResult>;
  findAccountBySlug(slug: string): Promise<AccountRecord | undefined>;
  findAccountById(accountId: string): Promise<AccountRecord | undefined>;
  updateAccountSettings(accountId: string, settings: AccountSettings): Promise<void>;
  /** Locks the account row until the transaction ends (PostgreSQL; SQLite has one writer): account-wide counts. */
  lockAccount(accountId: string): Promise<void>;
}

export interface ProfileStore {
  insertProfile(profile: ProfileRecord): Promise<InsertResult>;
  findDefaultProfile(accountId: string): Promise<ProfileRecord | undefined>;
  findProfile(accountId: string, profileId: string): Promise<ProfileRecord | undefined>;
}

/** A key, its account, and the account's default profile (findDefaultProfile) as read with them. */
export interface KeyWithAccount {
  key: ApiKeyRecord;
  account: AccountRecord;
  defaultProfile: ProfileRecord | undefined;
}

export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord): Promise<InsertResult>;
  /** The key with this hash and its account, whatever its revocation state (the caller checks). */
  findApiKeyByHash(keyHash: string): Promise<KeyWithAccount | undefined>;
  /** The same, only when this process keeps the answer in memory (key-lookup-cache.ts); never reads the database. */
  findKeptApiKeyByHash(keyHash: string): KeyWithAccount | undefined;
  /** True when the account has an unrevoked, unexpired key of this mode. */
  hasUsableKeys(scope: Scope, now: Date): Promise<boolean>;
  /** The account's keys of both modes that are unrevoked and unexpired at `now`, oldest first. */
  listUsableApiKeys(accountId: string, now: Date): Promise<ApiKeyRecord[]>;
  findApiKeyById(accountId: string, keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Ends a key: revokedAt now (revoke) or expiresAt at the end of a grace window (rotate). Only a key that is
   * still unrevoked and without an end is changed; false when another call ended it first.
   */
  endApiKey(accountId: string, keyId: string, end: { revokedAt: Date } | { expiresAt: Date }): Promise<boolean>;
  /** Revokes at once a key in its grace window (a revoke after a rotation). */
  revokeExpiringApiKey(accountId: string, keyId: string, at: Date): Promise<boolean>;
  /** Keys issued by rotation in this account since `since` (the rotation rate limit counts them). */
  countRotationsSince(accountId: string, since: Date): Promise<number>;
}

/** The accounts stores, as storage/stores.ts composes them into Stores. */
export interface AccountsStores {
  accounts: AccountStore;
  profiles: ProfileStore;
  apiKeys: ApiKeyStore;
}
