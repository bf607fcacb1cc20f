/**
 * First-boot setup (operations.md "Bootstrap"): on an empty store, the default account, one business profile,
 * test-mode keys and the bootstrap operator. Every step is idempotent (unique keys + insert-or-nothing), so a
 * restart, or several instances starting together on PostgreSQL, keep what exists and never duplicate it. What
 * exists is read first and written only when missing or changed: on SQLite every write waits for its WAL sync, and
 * a restart on an existing store then writes nothing.
 */
import type { Mode, KeyType } from '../../../../protocol/ids';
import type { AccountRecord, ProfileRecord } from '../../storage/accounts/records';
import type { Store } from '../../storage/stores';
import { generateWebhookSecret } from '../../webhooks/signing';
import type { AccountSettings, WebhookEndpointSettings } from '../../kernel/account-settings-types';
import { parseApiKey } from '../auth/auth';
import type { Clock } from '../../kernel/clock';
import type { IdGenerator } from '../../kernel/ids';
import { generateTotpSecret, hashPassword } from '../auth/secrets';
import { DEFAULT_KEY_SCOPES, type ApiScope } from '../../../../protocol/api/keys';
import type { OperatorSecretBox } from '../../vault/operator-secret-box';
import { GENERATED_KEY_SECRET_LENGTH, issueApiKey, keyPrefix } from '../api-keys/issue-api-key';

export { GENERATED_KEY_SECRET_LENGTH, keyPrefix };

export const DEFAULT_ACCOUNT_SLUG = 'default';
export const DEFAULT_OPERATOR_EMAIL = 'operator@rail.local';
/** Scopes of the bootstrap operator: key management, the settlement wallet, the other operators, webhook endpoints. */
export const OPERATOR_SCOPES: readonly ApiScope[] = ['api_keys:manage', 'collect:write', 'operators:manage', 'webhooks:manage'];

/** Plaintext test keys kept across restarts (a file in the data directory; see main.ts). */
export interface BootstrapSecretsFile {
  read(): Promise<{ testSecretKey?: string; testPublishableKey?: string }>;
  write(values: { testSecretKey: string; testPublishableKey: string }): Promise<void>;
}

export interface BootstrapInput {
  settings: AccountSettings;
  /** Keys from the environment; used when they have the right shape, type and mode. */
  testSecretKey?: string | undefined;
  testPublishableKey?: string | undefined;
  operatorEmail?: string | undefined;
  operatorPassword?: string | undefined;
  operatorTotpSecret?: string | undefined;
  /**
   * The operator's credentials, prepared (its password's hash under way) before the store was opened, by a caller
   * that knows the store is new (compose: no SQLite file yet); used only if no operator exists.
   */
  operator?: PreparedOperator | undefined;
  /** RAIL_WEBHOOK_URL: the default account's endpoint (absent: none, events are recorded as no_endpoint). */
  webhookUrl?: string | undefined;
  /** RAIL_WEBHOOK_SECRET (whsec_...); absent: the stored one, else a generated one kept with the account. */
  webhookSecret?: string | undefined;
}

export interface BootstrapResult {
  account: AccountRecord;
  profile: ProfileRecord;
  testSecretKey: string;
  testPublishableKey: string;
  /** Present only when the operator was created by this boot: the only time the password is shown. */
  createdOperator?: { email: string; password: string; totpSecret: string };
  /** The default account's webhook endpoint and where its secret came from. */
  webhook: WebhookEndpointSettings & { secretSource: 'env' | 'stored' | 'generated' };
  warnings: string[];
}

export interface BootstrapDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  secretsFile: BootstrapSecretsFile;
  /** Seals the operator's TOTP secret with the vault key. */
  operatorSecrets: OperatorSecretBox;
}

export async function bootstrap(deps: BootstrapDeps, input: BootstrapInput): Promise<BootstrapResult> {
  const warnings: string[] = [];
  const now = deps.clock.now();

  let stored = await deps.store.accounts.findAccountBySlug(DEFAULT_ACCOUNT_SLUG);
  if (stored === undefined) {
    await deps.store.accounts.insertAccount({
      accountId: deps.ids.id('account'),
      slug: DEFAULT_ACCOUNT_SLUG,
      name: input.settings.merchantName,
      settings: input.settings,
      createdAt: now,
    });
    stored = await deps.store.accounts.findAccountBySlug(DEFAULT_ACCOUNT_SLUG);
    if (stored === undefined) throw new Error('default account missing after insert');
  }
  // The webhook secret outlives restarts: the environment's wins, else the stored one, else a new one.
  const storedSecret = stored.settings.webhook?.secret;
  const secretSource = input.webhookSecret ? 'env' : storedSecret ? 'stored' : 'generated';
  const webhook: WebhookEndpointSettings = {
    url: input.webhookUrl ?? null,
    secret: input.webhookSecret || storedSecret || generateWebhookSecret(),
  };
  // A wallet an operator saved (PUT /v1/collect/wallet) outlives restarts; RAIL_ACCOUNT_CONFIG's only seeds the first.
  const usdtWallet = stored.settings.usdtWallet ?? input.settings.usdtWallet;
  const settings: AccountSettings = { ...input.settings, webhook, ...(usdtWallet !== undefined ? { usdtWallet } : {}) };
  if (stored.name !== input.settings.merchantName || JSON.stringify(stored.settings) !== JSON.stringify(settings)) {
    await deps.store.accounts.updateAccountSettings(stored.accountId, settings);
  }
  const account: AccountRecord = { ...stored, name: input.settings.merchantName, settings };

  let profile = await deps.store.profiles.findDefaultProfile(account.accountId);
  if (profile === undefined) {
    await deps.store.profiles.insertProfile({
      profileId: deps.ids.id('profile'),
      accountId: account.accountId,
      name: 'default',
      isDefault: true,
      createdAt: now,
    });
    profile = await deps.store.profiles.findDefaultProfile(account.accountId);
    if (profile === undefined) throw new Error('default profile missing after insert');
  }

  const persisted = await deps.secretsFile.read();
  const pick = (envValue: string | undefined, persistedValue: string | undefined, keyType: KeyType, envName: string) => {
    if (envValue !== undefined && envValue !== '') {
      if (hasShape(envValue, keyType, 'test')) return { key: envValue, generated: false };
      warnings.push(`${envName} does not have the shape rail_${keyType}_test_<32+ base62>; a generated key is used instead`);
    }
    if (persistedValue !== undefined && hasShape(persistedValue, keyType, 'test')) return { key: persistedValue, generated: false };
    return { key: `rail_${keyType}_test_${deps.ids.secret(GENERATED_KEY_SECRET_LENGTH)}`, generated: true };
  };
  const secret = pick(input.testSecretKey, persisted.testSecretKey, 'full', 'RAIL_TEST_SECRET_KEY');
  const publishable = pick(input.testPublishableKey, persisted.testPublishableKey, 'open', 'RAIL_TEST_PUBLISHABLE_KEY');
  if (secret.generated || publishable.generated || persisted.testSecretKey !== secret.key || persisted.testPublishableKey !== publishable.key) {
    await deps.secretsFile.write({ testSecretKey: secret.key, testPublishableKey: publishable.key });
  }
  for (const [key, keyType, name] of [
    [secret.key, 'full', 'bootstrap test secret key'],
    [publishable.key, 'open', 'bootstrap test publishable key'],
  ] as const) {
    const { record } = issueApiKey(deps.ids, {
      accountId: account.accountId,
      mode: 'test',
      keyType,
      name,
      scopes: DEFAULT_KEY_SCOPES,
      replacesKeyId: null,
      createdAt: now,
      plaintext: key,
    });
    if ((await deps.store.apiKeys.findApiKeyByHash(record.keyHash)) === undefined) await deps.store.apiKeys.insertApiKey(record);
  }

  let createdOperator: BootstrapResult['createdOperator'];
  // One read serves both the first-boot check and the sealing below (a round trip less on PostgreSQL's start).
  const operators = await deps.store.operators.listOperators(account.accountId);
  if (operators.length === 0) {
    const { operatorId, email, password, totpSecret, passwordHash } = input.operator ?? prepareOperator(deps.ids, input);
    const inserted = await deps.store.operators.insertOperator({
      operatorId,
      accountId: account.accountId,
      email,
      passwordHash: await passwordHash,
      totpSecret: deps.operatorSecrets.seal(totpSecret, operatorId, account.accountId),
      scopes: OPERATOR_SCOPES,
      totpLastStep: null,
      createdAt: now,
    });
    if (inserted === 'inserted') createdOperator = { email, password, totpSecret };
  }
  // Versions before key management stored the TOTP secret in plain text: seal it on the first boot after. An
  // operator this boot created is sealed already.
  for (const operator of operators) {
    if (operator.totpSecret !== '' && !deps.operatorSecrets.isSealed(operator.totpSecret)) {
      await deps.store.operators.updateOperatorTotpSecret(operator.operatorId, deps.operatorSecrets.seal(operator.totpSecret, operator.operatorId, account.accountId));
    }
  }

  return {
    account,
    profile,
    testSecretKey: secret.key,
    testPublishableKey: publishable.key,
    createdOperator,
    // object-shapes: once per start
    webhook: { ...webhook, secretSource },
    warnings,
  };
}

export interface PreparedOperator {
  operatorId: string;
  email: string;
  password: string;
  totpSecret: string;
  /** scrypt (hashPassword), on the thread pool. */
  passwordHash: Promise<string>;
}

/** The bootstrap operator's credentials, its password's hash under way. */
export function prepareOperator(
  ids: IdGenerator,
  input: Pick<BootstrapInput, 'operatorEmail' | 'operatorPassword' | 'operatorTotpSecret'>,
): PreparedOperator {
  const password = input.operatorPassword || ids.secret(24);
  const passwordHash = hashPassword(password);
  // Awaited only if the operator is inserted; a boot that fails before then must not leave its rejection unhandled.
  passwordHash.catch(() => undefined);
  return {
    operatorId: `op_${ids.secret(20)}`,
    email: (input.operatorEmail || DEFAULT_OPERATOR_EMAIL).toLowerCase(),
    password,
    totpSecret: input.operatorTotpSecret || generateTotpSecret(),
    passwordHash,
  };
}

function hasShape(key: string, keyType: KeyType, mode: Mode): boolean {
  const parsed = parseApiKey(key);
  return parsed !== undefined && parsed.keyType === keyType && parsed.mode === mode;
}
