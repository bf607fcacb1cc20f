import type { Kysely, Selectable } from 'kysely';
import { keyLookupCacheOf } from '../database';
import type { Database } from '../schema';
import type { AccountSettings } from '../../kernel/account-settings-types';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { ApiScope } from '../../../../protocol/api/keys';
import type { AccountRecord, ApiKeyRecord, ProfileRecord } from './records';
import type { AccountsTable, ApiKeysTable, ProfilesTable } from './schema';
import type { AccountsStores, AccountStore, ApiKeyStore, KeyWithAccount, ProfileStore } from './store';
import { dateOrNull, type Db, insertResult, iso, isoOrNull, inScope } from '../sql-rows';
import { compiledOnce } from '../compiled-query';

export function toAccount(row: Selectable<AccountsTable>): AccountRecord {
  return {
    accountId: row.account_id,
    slug: row.slug,
    name: row.name,
    settings: JSON.parse(row.settings) as AccountSettings,
    createdAt: new Date(row.created_at),
  };
}

/** The account columns a key look-up joins in (account_id comes from the key's own table). */
export const JOINED_ACCOUNT_COLUMNS = [
  'accounts.slug as account_slug',
  'accounts.name as account_name',
  'accounts.settings as account_settings',
  'accounts.created_at as account_created_at',
] as const;

/** The account of a row selected with JOINED_ACCOUNT_COLUMNS. */
export function toJoinedAccount(row: {
  account_id: string;
  account_slug: string;
  account_name: string;
  account_settings: string;
  account_created_at: string;
}): AccountRecord {
  return toAccount({
    account_id: row.account_id,
    slug: row.account_slug,
    name: row.account_name,
    settings: row.account_settings,
    created_at: row.account_created_at,
  });
}

type ApiKeyWithAccountRow = Selectable<ApiKeysTable> & {
  account_slug: string;
  account_name: string;
  account_settings: string;
  account_created_at: string;
  default_profile_id: string | null;
  default_profile_name: string | null;
  default_profile_created_at: string | null;
};

/** The account's default profile: its oldest profile marked default (a migrated account may have had several). */
const defaultProfileOf = (db: Db, accountId: unknown) =>
  db
    .selectFrom('business_profiles')
    .where('account_id', '=', accountId as string)
    .where('is_default', '=', 1)
    .orderBy('created_at')
    .orderBy('profile_id')
    .limit(1);

// The look-ups of every API call, compiled once (storage/compiled-query.ts). The key's look-up brings the account
// and its default profile (what creating a payment needs) in the same round trip.
const findApiKeyByHashQuery = compiledOnce<{ keyHash: string }>((db, value) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.account_id', 'api_keys.account_id')
    .leftJoin('business_profiles as default_profile', (join) =>
      join.on('default_profile.profile_id', '=', (eb) => defaultProfileOf(db, eb.ref('accounts.account_id')).select('business_profiles.profile_id')),
    )
    .selectAll('api_keys')
    .select(JOINED_ACCOUNT_COLUMNS)
    .select(['default_profile.profile_id as default_profile_id', 'default_profile.name as default_profile_name', 'default_profile.created_at as default_profile_created_at'])
    .where('api_keys.key_hash', '=', value('keyHash')),
);

const findDefaultProfileQuery = compiledOnce<{ accountId: string }>((db, value) => defaultProfileOf(db, value('accountId')).selectAll());

function toProfile(row: Selectable<ProfilesTable>): ProfileRecord {
  return { profileId: row.profile_id, accountId: row.account_id, name: row.name, isDefault: row.is_default === 1, createdAt: new Date(row.created_at) };
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    keyId: row.key_id,
    accountId: row.account_id,
    mode: row.mode,
    keyType: row.key_type,
    name: row.name,
    prefix: row.prefix,
    keyHash: row.key_hash,
    createdAt: new Date(row.created_at),
    revokedAt: dateOrNull(row.revoked_at),
    expiresAt: dateOrNull(row.expires_at),
    scopes: JSON.parse(row.scopes) as ApiScope[],
    replacesKeyId: row.replaces_key_id,
  };
}

class SqlAccountStore implements AccountStore {
  constructor(private readonly db: Db) {}

  async insertAccount(account: AccountRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('accounts')
      .values({
        account_id: account.accountId,
        slug: account.slug,
        name: account.name,
        settings: JSON.stringify(account.settings),
        created_at: iso(account.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findAccountBySlug(slug: string): Promise<AccountRecord | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row && toAccount(row);
  }

  async lockAccount(accountId: string): Promise<void> {
    await this.db.updateTable('accounts').set((eb) => ({ name: eb.ref('name') })).where('account_id', '=', accountId).execute();
  }

  async findAccountById(accountId: string): Promise<AccountRecord | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return row && toAccount(row);
  }

  async updateAccountSettings(accountId: string, settings: AccountSettings): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({ settings: JSON.stringify(settings), name: settings.merchantName })
      .where('account_id', '=', accountId)
      .execute();
  }
}

class SqlProfileStore implements ProfileStore {
  constructor(private readonly db: Db) {}

  async insertProfile(profile: ProfileRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('business_profiles')
      .values({
        profile_id: profile.profileId,
        account_id: profile.accountId,
        name: profile.name,
        is_default: profile.isDefault ? 1 : 0,
        created_at: iso(profile.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findDefaultProfile(accountId: string): Promise<ProfileRecord | undefined> {
    const [row] = (await findDefaultProfileQuery<Selectable<ProfilesTable>>(this.db, { accountId })).rows;
    return row && toProfile(row);
  }

  async findProfile(accountId: string, profileId: string): Promise<ProfileRecord | undefined> {
    const row = await this.db
      .selectFrom('business_profiles')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId)
      .executeTakeFirst();
    return row && toProfile(row);
  }
}

class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Db) {}

  async insertApiKey(key: ApiKeyRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('api_keys')
      .values({
        key_id: key.keyId,
        account_id: key.accountId,
        mode: key.mode,
        key_type: key.keyType,
        name: key.name,
        prefix: key.prefix,
        key_hash: key.keyHash,
        created_at: iso(key.createdAt),
        revoked_at: isoOrNull(key.revokedAt),
        expires_at: isoOrNull(key.expiresAt),
        scopes: JSON.stringify(key.scopes),
        replaces_key_id: key.replacesKeyId,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findApiKeyByHash(keyHash: string): Promise<KeyWithAccount | undefined> {
    const cache = keyLookupCacheOf(this.db as Kysely<Database>);
    return cache === undefined ? this.#readApiKeyByHash(keyHash) : cache.lookUp(keyHash, () => this.#readApiKeyByHash(keyHash));
  }

  findKeptApiKeyByHash(keyHash: string): KeyWithAccount | undefined {
    return keyLookupCacheOf(this.db as Kysely<Database>)?.kept(keyHash);
  }

  async #readApiKeyByHash(keyHash: string): Promise<KeyWithAccount | undefined> {
    const [row] = (await findApiKeyByHashQuery<ApiKeyWithAccountRow>(this.db, { keyHash })).rows;
    if (row === undefined) return undefined;
    const defaultProfile =
      row.default_profile_id === null
        ? undefined
        : toProfile({ profile_id: row.default_profile_id, account_id: row.account_id, name: row.default_profile_name!, is_default: 1, created_at: row.default_profile_created_at! });
    return { key: toApiKey(row), account: toJoinedAccount(row), defaultProfile };
  }

  async hasUsableKeys(scope: Scope, now: Date): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('key_id')
      .where(inScope(scope))
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', iso(now))]))
      .executeTakeFirst();
    return row !== undefined;
  }

  async listUsableApiKeys(accountId: string, now: Date): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', iso(now))]))
      .orderBy('created_at')
      .orderBy('key_id')
      .execute();
    return rows.map(toApiKey);
  }

  async findApiKeyById(accountId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('key_id', '=', keyId).executeTakeFirst();
    return row && toApiKey(row);
  }

  async endApiKey(accountId: string, keyId: string, end: { revokedAt: Date } | { expiresAt: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set('revokedAt' in end ? { revoked_at: iso(end.revokedAt) } : { expires_at: iso(end.expiresAt) })
      .where('account_id', '=', accountId)
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .where('expires_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async revokeExpiringApiKey(accountId: string, keyId: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: iso(at) })
      .where('account_id', '=', accountId)
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', iso(at))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async countRotationsSince(accountId: string, since: Date): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('account_id', '=', accountId)
      .where('replaces_key_id', 'is not', null)
      .where('created_at', '>', iso(since))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

/** The accounts stores on one connection or transaction. */
export function accountsSqlStores(db: Db): AccountsStores {
  return { accounts: new SqlAccountStore(db), profiles: new SqlProfileStore(db), apiKeys: new SqlApiKeyStore(db) };
}
