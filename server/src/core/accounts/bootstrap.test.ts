import { afterEach, describe, expect, test } from 'vitest';
import { groupCommitOf, openDatabase } from '../../storage/database';
import { SqlStore } from '../../storage/sql-store';
import { createTestDatabase, memorySecretsFile, testOperatorSecrets, type TestDatabase } from '../../test-support/harness';
import { DEFAULT_ACCOUNT_SETTINGS } from './account-settings';
import { bootstrap, keyPrefix, prepareOperator } from './bootstrap';
import { systemClock } from '../../kernel/clock';
import { cryptoIds } from '../../kernel/ids';
import { hashSecret, verifyPassword } from '../auth/secrets';

const databases: TestDatabase[] = [];
const stores: SqlStore[] = [];

async function openStore(database: TestDatabase): Promise<SqlStore> {
  return (await openStoreCountingSyncs(database)).store;
}

/** The store, and how many WAL syncs its writes have waited for since (each write waits for one). */
async function openStoreCountingSyncs(database: TestDatabase): Promise<{ store: SqlStore; syncs: () => number }> {
  const { db } = openDatabase({ sqliteFile: database.sqliteFile });
  const store = new SqlStore(db, 'sqlite');
  await store.migrate();
  stores.push(store);
  const group = groupCommitOf(db)!;
  const before = group.syncs;
  return { store, syncs: () => group.syncs - before };
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const database of databases.splice(0)) await database.drop();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase('sqlite');
  databases.push(database);
  return database;
}

describe('bootstrap', () => {
  test('creates account, profile, test keys (stored as hashes) and the operator once; a restart keeps them', async () => {
    const database = await freshDatabase();
    const secrets = memorySecretsFile();
    const store1 = await openStore(database);
    const first = await bootstrap({ store: store1, clock: systemClock, ids: cryptoIds, secretsFile: secrets, operatorSecrets: testOperatorSecrets() }, { settings: DEFAULT_ACCOUNT_SETTINGS });
    expect(first.testSecretKey).toMatch(/^rail_full_test_[A-Za-z0-9]{40}$/);
    expect(first.testPublishableKey).toMatch(/^rail_open_test_[A-Za-z0-9]{40}$/);
    expect(first.createdOperator?.email).toBe('operator@rail.local');
    expect(first.createdOperator?.totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    const found = await store1.apiKeys.findApiKeyByHash(hashSecret(first.testSecretKey));
    expect(found?.key).toMatchObject({ mode: 'test', keyType: 'full', prefix: keyPrefix(first.testSecretKey) });
    expect(found?.key.prefix).toHaveLength('rail_full_test_'.length + 6);
    await store1.close();

    const store2 = await openStore(database);
    const second = await bootstrap({ store: store2, clock: systemClock, ids: cryptoIds, secretsFile: secrets, operatorSecrets: testOperatorSecrets() }, { settings: DEFAULT_ACCOUNT_SETTINGS });
    expect(second.account.accountId).toBe(first.account.accountId);
    expect(second.profile.profileId).toBe(first.profile.profileId);
    expect(second.testSecretKey).toBe(first.testSecretKey);
    expect(second.testPublishableKey).toBe(first.testPublishableKey);
    expect(second.createdOperator).toBeUndefined();
    expect(await store2.operators.listOperators(first.account.accountId)).toHaveLength(1);
  });

  test('a restart with the same settings writes nothing; a changed merchant name is written', async () => {
    const database = await freshDatabase();
    const secrets = memorySecretsFile();
    const deps = (store: SqlStore) => ({ store, clock: systemClock, ids: cryptoIds, secretsFile: secrets, operatorSecrets: testOperatorSecrets() });
    const first = await openStoreCountingSyncs(database);
    await bootstrap(deps(first.store), { settings: DEFAULT_ACCOUNT_SETTINGS });
    expect(first.syncs()).toBeGreaterThan(0);
    await first.store.close();

    const restart = await openStoreCountingSyncs(database);
    const again = await bootstrap(deps(restart.store), { settings: DEFAULT_ACCOUNT_SETTINGS });
    expect(restart.syncs()).toBe(0);
    expect(again.account.name).toBe(DEFAULT_ACCOUNT_SETTINGS.merchantName);

    const renamed = await bootstrap(deps(restart.store), { settings: { ...DEFAULT_ACCOUNT_SETTINGS, merchantName: 'Renamed Shop' } });
    expect(restart.syncs()).toBe(1);
    expect(renamed.account.name).toBe('Renamed Shop');
    expect((await restart.store.accounts.findAccountBySlug('default'))?.name).toBe('Renamed Shop');
  });

  test('uses well-shaped env keys and operator values; the password is stored as scrypt', async () => {
    const database = await freshDatabase();
    const store = await openStore(database);
    const secretKey = `rail_full_test_${'a'.repeat(32)}`;
    const publishableKey = `rail_open_test_${'b'.repeat(32)}`;
    const result = await bootstrap(
      { store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() },
      {
        settings: DEFAULT_ACCOUNT_SETTINGS,
        testSecretKey: secretKey,
        testPublishableKey: publishableKey,
        operatorEmail: 'ops@example.com',
        operatorPassword: 'correct horse battery',
        operatorTotpSecret: 'JBSWY3DPEHPK3PXP',
      },
    );
    expect(result).toMatchObject({ testSecretKey: secretKey, testPublishableKey: publishableKey, warnings: [] });
    expect(result.createdOperator).toEqual({ email: 'ops@example.com', password: 'correct horse battery', totpSecret: 'JBSWY3DPEHPK3PXP' });
    expect(await store.apiKeys.findApiKeyByHash(hashSecret(publishableKey))).toBeDefined();
  });

  test('an operator prepared ahead (a new store) is the one created; a store that has an operator ignores it', async () => {
    const database = await freshDatabase();
    const store = await openStore(database);
    const deps = { store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() };
    const prepared = prepareOperator(cryptoIds, { operatorEmail: 'Early@Example.com', operatorPassword: 'prepared pass' });
    const first = await bootstrap(deps, { settings: DEFAULT_ACCOUNT_SETTINGS, operator: prepared });
    expect(first.createdOperator).toEqual({ email: 'early@example.com', password: 'prepared pass', totpSecret: prepared.totpSecret });
    const [operator, ...others] = await store.operators.listOperators(first.account.accountId);
    expect(others).toEqual([]);
    expect(operator!.operatorId).toBe(prepared.operatorId);
    expect(await verifyPassword('prepared pass', operator!.passwordHash)).toBe(true);

    const again = await bootstrap(deps, { settings: DEFAULT_ACCOUNT_SETTINGS, operator: prepareOperator(cryptoIds, { operatorPassword: 'another' }) });
    expect(again.createdOperator).toBeUndefined();
    expect(await store.operators.listOperators(first.account.accountId)).toHaveLength(1);
  });

  test('a badly shaped env key is replaced by a generated one, with a warning', async () => {
    const database = await freshDatabase();
    const store = await openStore(database);
    const result = await bootstrap(
      { store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() },
      { settings: DEFAULT_ACCOUNT_SETTINGS, testSecretKey: 'rail_full_test_short', testPublishableKey: `rail_full_test_${'c'.repeat(32)}` },
    );
    expect(result.testSecretKey).toMatch(/^rail_full_test_[A-Za-z0-9]{40}$/);
    expect(result.testPublishableKey).toMatch(/^rail_open_test_[A-Za-z0-9]{40}$/);
    expect(result.warnings).toHaveLength(2);
  });

  test('verifyPassword accepts the right password only', async () => {
    const { hashPassword } = await import('../auth/secrets');
    const hash = await hashPassword('s3cret-pass');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('s3cret-pass', hash)).toBe(true);
    expect(await verifyPassword('wrong', hash)).toBe(false);
  });
  test('a wallet an operator saved outlives restarts; RAIL_ACCOUNT_CONFIG only seeds the first one', async () => {
    const database = await freshDatabase();
    const store = await openStore(database);
    const boot = (settings = DEFAULT_ACCOUNT_SETTINGS) =>
      bootstrap({ store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() }, { settings });
    const seeded = { network: 'tron' as const, address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' };
    const first = await boot({ ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: seeded });
    expect(first.account.settings.usdtWallet).toEqual(seeded);
    const saved = { network: 'ethereum' as const, address: '0x52908400098527886E0F7030069857D2E4169EE7' };
    await store.accounts.updateAccountSettings(first.account.accountId, { ...first.account.settings, usdtWallet: saved });
    expect((await boot()).account.settings.usdtWallet).toEqual(saved);
    expect((await boot({ ...DEFAULT_ACCOUNT_SETTINGS, usdtWallet: seeded })).account.settings.usdtWallet).toEqual(saved);
  });

  test('an operator TOTP secret stored in plain text by an older version is sealed at the next boot', async () => {
    const database = await freshDatabase();
    const store = await openStore(database);
    const secrets = testOperatorSecrets();
    const first = await bootstrap({ store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: secrets }, { settings: DEFAULT_ACCOUNT_SETTINGS });
    const [operator] = await store.operators.listOperators(first.account.accountId);
    await store.operators.updateOperatorTotpSecret(operator!.operatorId, first.createdOperator!.totpSecret);
    await bootstrap({ store, clock: systemClock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: secrets }, { settings: DEFAULT_ACCOUNT_SETTINGS });
    const [after] = await store.operators.listOperators(first.account.accountId);
    expect(after!.totpSecret).not.toBe(first.createdOperator!.totpSecret);
    expect(secrets.open(after!.totpSecret, after!.operatorId, first.account.accountId)).toBe(first.createdOperator!.totpSecret);
  });
});
