/**
 * Configuration from the environment (operations.md "Environment"), parsed once with zod. RAIL_ACCOUNT_CONFIG
 * names a JSON file with account settings; it is read and validated here too, so the rest of the server gets
 * typed values only.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { CURRENCIES } from '../../protocol/currency';
import { USDT_NETWORKS } from '../../protocol/api/collect';
import { parseRateLimits, type RateLimits } from './http/rate-limit';
import { DEFAULT_PG_POOL_SIZE } from './storage/database';
import { parseVaultKey } from './vault/vault-cipher';
import { DEFAULT_LEASE_MS, DEFAULT_TIMEOUT_MS, LEASE_MARGIN_MS, leaseTooShort } from './webhooks/delivery';
import { IDEMPOTENCY_LEASE_MS } from './core/auth/idempotency';
import { DEFAULT_ACCOUNT_SETTINGS } from './core/accounts/account-settings';
import { DEFAULT_KEY_POLICY, DEFAULT_RECOVERY_POLICY, type KeyPolicy, type RecoveryPolicy } from './core/shared/deps';
import type { AccountSettings, RailCapabilities, RailSettings } from './kernel/account-settings-types';

const DEFAULT_RETRY_SCHEDULE = '60,300,300,600,600,600,600,600,3600,3600,3600,3600,3600,21600,21600,21600';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const EnvSchema = z.object({
  RAIL_HOST: z.string().min(1).default('127.0.0.1'),
  RAIL_PORT: port(8080),
  RAIL_JS_PORT: port(8081),
  RAIL_PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()),
  RAIL_PUBLIC_JS_URL: optionalString.pipe(z.url().optional()),
  RAIL_DATA_DIR: z.string().min(1).default('./.rail-data'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// URL')
      .optional(),
  ),
  RAIL_TEST_SECRET_KEY: optionalString,
  RAIL_TEST_PUBLISHABLE_KEY: optionalString,
  RAIL_OPERATOR_EMAIL: optionalString.pipe(z.email().optional()),
  RAIL_OPERATOR_PASSWORD: optionalString.pipe(z.string().min(12, 'RAIL_OPERATOR_PASSWORD needs at least 12 characters').optional()),
  RAIL_OPERATOR_TOTP_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Z2-7]{16,}=*$/, 'RAIL_OPERATOR_TOTP_SECRET must be base32 (A-Z, 2-7), at least 16 characters')
      .optional(),
  ),
  // http(s) only, as the API's endpoints: `localhost:8000/hook` parses as a URL of scheme `localhost:`, and fetch answers
  // a `data:` URL itself, so such a value would fail every delivery for a day, or mark events delivered that went nowhere.
  RAIL_WEBHOOK_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'RAIL_WEBHOOK_URL must be an http:// or https:// URL' }).optional()),
  RAIL_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'RAIL_WEBHOOK_SECRET must be whsec_ followed by base64 of at least 24 bytes')
      .optional(),
  ),
  RAIL_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((value, ctx) => {
      const parts = value.split(',').map((part) => part.trim());
      const seconds = parts.map(Number);
      if (parts.length === 0 || seconds.some((n, i) => parts[i] === '' || !Number.isInteger(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: 'RAIL_WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds' });
        return z.NEVER;
      }
      return seconds;
    }),
  RAIL_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_TIMEOUT_MS),
  RAIL_WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(DEFAULT_LEASE_MS),
  RAIL_ACCOUNT_CONFIG: optionalString,
  RAIL_VAULT_KEY: optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = parseVaultKey(value);
    if ('error' in parsed) {
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed.key;
  }),
  RAIL_PAYMENT_SYNC_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  RAIL_RAIL_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_RECOVERY_POLICY.railCallTimeoutMs),
  RAIL_RECOVER_AFTER_MS: z.coerce.number().int().min(200).max(86_400_000).default(DEFAULT_RECOVERY_POLICY.recoverAfterMs),
  RAIL_RECOVERY_DEADLINE_MS: z.coerce.number().int().min(1000).max(30 * 86_400_000).default(DEFAULT_RECOVERY_POLICY.deadlineMs),
  RAIL_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RAIL_RATE_LIMITS: optionalString.transform((value, ctx) => {
    const parsed = parseRateLimits(value);
    if (parsed !== null && 'error' in parsed) {
      ctx.addIssue({ code: 'custom', message: `RAIL_RATE_LIMITS: ${parsed.error}` });
      return z.NEVER;
    }
    return parsed as RateLimits | null;
  }),
  RAIL_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  RAIL_DEMO: z.enum(['on', 'off', 'auto']).default('auto'),
  RAIL_PG_POOL_SIZE: z.coerce.number().int().min(2).max(1000).default(DEFAULT_PG_POOL_SIZE),
  RAIL_PG_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
  RAIL_PG_ANALYZE: z.enum(['on', 'off']).default('on'),
  RAIL_PG_KEY_LOOKUPS: z.enum(['on', 'off']).default('on'),
  RAIL_SMTP_URL: optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    if (!/^smtps?:\/\/[^\s]+$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'RAIL_SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://...' });
      return z.NEVER;
    }
    return value;
  }),
  RAIL_SECURITY_EMAIL_FROM: z.string().trim().min(3).default('Rail security <security@rail.local>'),
  RAIL_KEY_ROTATION_LIMIT: optionalString.transform((value, ctx) => {
    if (value === undefined) return DEFAULT_KEY_POLICY.rotationLimit;
    const match = /^(\d+)\/(\d+)$/.exec(value);
    if (match === null || Number(match[1]) < 1 || Number(match[2]) < 1) {
      ctx.addIssue({ code: 'custom', message: 'RAIL_KEY_ROTATION_LIMIT must be ROTATIONS/SECONDS, both at least 1 (for example 10/3600)' });
      return z.NEVER;
    }
    return { limit: Number(match[1]), windowSeconds: Number(match[2]) };
  }),
});

const CapabilitiesFile = z.strictObject({
  refunds: z.boolean().optional(),
  metadata_updates: z.boolean().optional(),
  recurring: z.boolean().optional(),
  manual_capture: z.boolean().optional(),
  disputes: z.boolean().optional(),
});

/** The RAIL_ACCOUNT_CONFIG file (snake_case JSON). Every member is optional; absent ones keep the default. */
const AccountConfigFile = z.strictObject({
  merchant_name: z.string().min(1).max(255).optional(),
  merchant_origins: z.array(z.url()).optional(),
  allow_localhost_frame_ancestors: z.boolean().optional(),
  /** Shorthand for a test-mode `card` rail on the simulated acquirer (SIMULATED_ACQUIRER_CURRENCIES). */
  card_acquirer: z.enum(['simulator']).optional(),
  /** The saved, verified USDT wallet that Collect settlements go to (docs/collect.md). */
  /** A simulated billing processor on every business profile, test mode only (docs/capabilities.md). */
  billing_processor: z.enum(['simulator']).optional(),
  usdt_wallet: z
    .strictObject({ network: z.enum(['tron', 'ethereum', 'polygon']), address: z.string() })
    .refine((wallet) => USDT_NETWORKS[wallet.network].test(wallet.address), { message: 'address is not a wallet address of that network', path: ['address'] })
    .optional(),
  rails: z
    .array(
      z.strictObject({
        rail: z.enum(['upi', 'bank_transfer', 'crypto', 'card']),
        currencies: z.array(z.enum(CURRENCIES)).min(1),
        modes: z.array(z.enum(['test', 'live'])).min(1),
        capabilities: z.strictObject({ test: CapabilitiesFile.optional(), live: CapabilitiesFile.optional() }).optional(),
      }),
    )
    .optional(),
});

/** Currencies of the card rail that `"card_acquirer": "simulator"` adds. */
export const SIMULATED_ACQUIRER_CURRENCIES = ['USD', 'EUR', 'GBP', 'INR'] as const;

export interface Config {
  host: string;
  port: number;
  jsPort: number;
  publicBaseUrl: string;
  publicJsUrl: string;
  /** Set when one public URL is given and the other is left to its local default (logged at start). */
  publicUrlWarning: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  testSecretKey: string | undefined;
  testPublishableKey: string | undefined;
  operatorEmail: string | undefined;
  operatorPassword: string | undefined;
  operatorTotpSecret: string | undefined;
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
  webhookRetryScheduleSeconds: number[];
  /** RAIL_WEBHOOK_TIMEOUT_MS: how long one delivery attempt waits for the endpoint. */
  webhookTimeoutMs: number;
  /** RAIL_WEBHOOK_LEASE_MS: how long a claim holds an event; longer than the timeout plus LEASE_MARGIN_MS. */
  webhookLeaseMs: number;
  accountSettings: AccountSettings;
  /** RAIL_VAULT_KEY (32 bytes); undefined: the key file in the data directory (vault/vault-cipher.ts). */
  vaultKey: Buffer | undefined;
  /** How often waiting payments are asked about (core/payments/sweep-waiting-payments.ts); 0 turns the sweep off. */
  paymentSyncIntervalMs: number;
  /** RAIL_RAIL_CALL_TIMEOUT_MS, RAIL_RECOVER_AFTER_MS, RAIL_RECOVERY_DEADLINE_MS (docs/reliability.md). */
  recovery: RecoveryPolicy;
  logLevel: z.infer<typeof EnvSchema>['RAIL_LOG_LEVEL'];
  /** Limits on the browser and public surfaces (http/rate-limit.ts); null: RAIL_RATE_LIMITS=off. */
  rateLimits: RateLimits | null;
  trustedProxyHops: number;
  /** The demo checkout: on, off, or auto (on while the account has no live keys). */
  demo: 'on' | 'off' | 'auto';
  /** The most connections each server process opens to PostgreSQL (its pool; the key look-ups' listener is one more). */
  pgPoolSize: number;
  /** Named prepared statements on PostgreSQL (storage/prepared-statements.ts); off behind a pooler that cannot keep them. */
  pgPreparedStatements: boolean;
  /** Rail analyzes its PostgreSQL tables as they change (storage/postgres-statistics.ts); off leaves it to autovacuum. */
  pgAnalyze: boolean;
  /**
   * API key look-ups kept in memory on PostgreSQL until a change to keys, accounts or profiles is notified
   * (storage/postgres-table-watch.ts); off reads the key at every request.
   */
  pgKeyLookups: boolean;
  /** Where security e-mails go out; undefined: they are kept and listed (GET /v1/security-emails). */
  smtpUrl: string | undefined;
  securityEmailFrom: string;
  /** Operator sessions and key rotation (RAIL_KEY_ROTATION_LIMIT over DEFAULT_KEY_POLICY). */
  keys: KeyPolicy;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function capabilities(file: z.infer<typeof CapabilitiesFile> | undefined): RailCapabilities {
  return {
    refunds: file?.refunds ?? false,
    metadataUpdates: file?.metadata_updates ?? false,
    recurring: file?.recurring ?? false,
    manualCapture: file?.manual_capture ?? false,
    disputes: file?.disputes ?? false,
  };
}

/** Reads and validates the RAIL_ACCOUNT_CONFIG file over the default settings. */
export function loadAccountSettings(path: string | undefined): AccountSettings {
  if (path === undefined) return DEFAULT_ACCOUNT_SETTINGS;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(resolve(path), 'utf8'));
  } catch (error) {
    throw new ConfigError(`RAIL_ACCOUNT_CONFIG: cannot read ${path} as JSON`, { cause: error });
  }
  const parsed = AccountConfigFile.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`RAIL_ACCOUNT_CONFIG: ${describeIssues(parsed.error.issues)}`);
  }
  const file = parsed.data;
  const rails: RailSettings[] | undefined = file.rails?.map((rail) => ({
    rail: rail.rail,
    currencies: rail.currencies,
    modes: rail.modes,
    capabilities: { test: capabilities(rail.capabilities?.test), live: capabilities(rail.capabilities?.live) },
  }));
  let allRails = rails ?? DEFAULT_ACCOUNT_SETTINGS.rails;
  if (file.card_acquirer === 'simulator' && !allRails.some((rail) => rail.rail === 'card')) {
    allRails = [
      ...allRails,
      { rail: 'card', currencies: SIMULATED_ACQUIRER_CURRENCIES, modes: ['test'], capabilities: { test: capabilities(undefined), live: capabilities(undefined) } },
    ];
  }
  return {
    merchantName: file.merchant_name ?? DEFAULT_ACCOUNT_SETTINGS.merchantName,
    merchantOrigins: file.merchant_origins?.map((origin) => new URL(origin).origin) ?? DEFAULT_ACCOUNT_SETTINGS.merchantOrigins,
    allowLocalhostFrameAncestors: file.allow_localhost_frame_ancestors ?? DEFAULT_ACCOUNT_SETTINGS.allowLocalhostFrameAncestors,
    rails: allRails,
    ...(file.usdt_wallet !== undefined ? { usdtWallet: file.usdt_wallet } : {}),
    ...(file.billing_processor !== undefined ? { billingProcessor: file.billing_processor } : {}),
  };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Parsed once per process: zod's compiled fast path for an object this wide costs more to build than this one parse
  // (2-3 ms of a start, docs/benchmarks-reading.md, thirty-sixth session).
  const parsed = EnvSchema.safeParse(env, { jitless: true });
  if (!parsed.success) throw new ConfigError(`invalid environment: ${describeIssues(parsed.error.issues)}`);
  const e = parsed.data;
  const webhookLease = leaseTooShort(e.RAIL_WEBHOOK_TIMEOUT_MS, e.RAIL_WEBHOOK_LEASE_MS);
  if (webhookLease !== undefined) {
    throw new ConfigError(`invalid environment: RAIL_WEBHOOK_LEASE_MS and RAIL_WEBHOOK_TIMEOUT_MS: ${webhookLease}`);
  }
  // A request under an Idempotency-Key holds it for IDEMPOTENCY_LEASE_MS, after which a retry takes it over: a keyed
  // webhook retry that waits for its endpoint, or an increase that waits for the rail twice, must end before that, or
  // the retry runs beside it, is refused by what it holds ("try later", which releases the key), and a third runs it
  // again.
  if (e.RAIL_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS >= IDEMPOTENCY_LEASE_MS) {
    throw new ConfigError(
      `invalid environment: RAIL_WEBHOOK_TIMEOUT_MS (${e.RAIL_WEBHOOK_TIMEOUT_MS} ms) plus ${LEASE_MARGIN_MS} ms must be shorter than the Idempotency-Key's lease (${IDEMPOTENCY_LEASE_MS} ms)`,
    );
  }
  if (2 * e.RAIL_RAIL_CALL_TIMEOUT_MS >= IDEMPOTENCY_LEASE_MS) {
    throw new ConfigError(
      `invalid environment: twice RAIL_RAIL_CALL_TIMEOUT_MS (${e.RAIL_RAIL_CALL_TIMEOUT_MS} ms) must be shorter than the Idempotency-Key's lease (${IDEMPOTENCY_LEASE_MS} ms)`,
    );
  }
  if (e.RAIL_RECOVER_AFTER_MS <= e.RAIL_RAIL_CALL_TIMEOUT_MS) {
    // Recovery must not ask about a payment whose confirm is still waiting for the rail.
    throw new ConfigError('invalid environment: RAIL_RECOVER_AFTER_MS must be longer than RAIL_RAIL_CALL_TIMEOUT_MS');
  }
  const hostForUrl = e.RAIL_HOST === '0.0.0.0' || e.RAIL_HOST === '::' ? '127.0.0.1' : e.RAIL_HOST;
  const stripSlash = (url: string) => url.replace(/\/+$/, '');
  return {
    host: e.RAIL_HOST,
    port: e.RAIL_PORT,
    jsPort: e.RAIL_JS_PORT,
    publicBaseUrl: stripSlash(e.RAIL_PUBLIC_BASE_URL ?? `http://${hostForUrl}:${e.RAIL_PORT}`),
    publicJsUrl: stripSlash(e.RAIL_PUBLIC_JS_URL ?? `http://${hostForUrl}:${e.RAIL_JS_PORT}`),
    // The frame sends cards only to the vault at the base URL (docs/runtime.md), whatever customBackendUrl says, and
    // redirects and simulator pages use it too: a server bound for other machines that made one URL public most
    // likely needs the other (bound to one address, the local default is the right one).
    publicUrlWarning:
      hostForUrl === e.RAIL_HOST || (e.RAIL_PUBLIC_BASE_URL === undefined) === (e.RAIL_PUBLIC_JS_URL === undefined)
        ? undefined
        : `${e.RAIL_PUBLIC_BASE_URL === undefined ? 'RAIL_PUBLIC_BASE_URL' : 'RAIL_PUBLIC_JS_URL'} is not set, so it is ${
            e.RAIL_PUBLIC_BASE_URL === undefined ? `http://${hostForUrl}:${e.RAIL_PORT}` : `http://${hostForUrl}:${e.RAIL_JS_PORT}`
          }, while ${e.RAIL_PUBLIC_BASE_URL === undefined ? 'RAIL_PUBLIC_JS_URL' : 'RAIL_PUBLIC_BASE_URL'} is set: browsers elsewhere cannot reach it (the payment frame sends cards to the vault at RAIL_PUBLIC_BASE_URL, whatever customBackendUrl says)`,
    dataDir: resolve(e.RAIL_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    testSecretKey: e.RAIL_TEST_SECRET_KEY,
    testPublishableKey: e.RAIL_TEST_PUBLISHABLE_KEY,
    operatorEmail: e.RAIL_OPERATOR_EMAIL,
    operatorPassword: e.RAIL_OPERATOR_PASSWORD,
    operatorTotpSecret: e.RAIL_OPERATOR_TOTP_SECRET,
    webhookUrl: e.RAIL_WEBHOOK_URL,
    webhookSecret: e.RAIL_WEBHOOK_SECRET,
    webhookRetryScheduleSeconds: e.RAIL_WEBHOOK_RETRY_SCHEDULE,
    webhookTimeoutMs: e.RAIL_WEBHOOK_TIMEOUT_MS,
    webhookLeaseMs: e.RAIL_WEBHOOK_LEASE_MS,
    accountSettings: loadAccountSettings(e.RAIL_ACCOUNT_CONFIG),
    vaultKey: e.RAIL_VAULT_KEY,
    paymentSyncIntervalMs: e.RAIL_PAYMENT_SYNC_INTERVAL_MS,
    recovery: {
      railCallTimeoutMs: e.RAIL_RAIL_CALL_TIMEOUT_MS,
      recoverAfterMs: e.RAIL_RECOVER_AFTER_MS,
      // Long enough for a lookup and a resend, each under the call limit.
      leaseMs: 3 * e.RAIL_RAIL_CALL_TIMEOUT_MS,
      deadlineMs: e.RAIL_RECOVERY_DEADLINE_MS,
    },
    logLevel: e.RAIL_LOG_LEVEL,
    pgPoolSize: e.RAIL_PG_POOL_SIZE,
    pgPreparedStatements: e.RAIL_PG_PREPARED_STATEMENTS === 'on',
    pgAnalyze: e.RAIL_PG_ANALYZE === 'on',
    pgKeyLookups: e.RAIL_PG_KEY_LOOKUPS === 'on',
    rateLimits: e.RAIL_RATE_LIMITS,
    trustedProxyHops: e.RAIL_TRUSTED_PROXY_HOPS,
    demo: e.RAIL_DEMO,
    smtpUrl: e.RAIL_SMTP_URL,
    securityEmailFrom: e.RAIL_SECURITY_EMAIL_FROM,
    keys: { ...DEFAULT_KEY_POLICY, rotationLimit: e.RAIL_KEY_ROTATION_LIMIT },
  };
}
