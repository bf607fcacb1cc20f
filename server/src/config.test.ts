import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from './config';
import { DEFAULT_ACCOUNT_SETTINGS } from './core/accounts/account-settings';
import { DEFAULT_RATE_LIMITS } from './http/rate-limit';
import { DEFAULT_LEASE_MS, DEFAULT_TIMEOUT_MS, LEASE_MARGIN_MS } from './webhooks/delivery';

describe('loadConfig', () => {
  test('usdt_wallet in RAIL_ACCOUNT_CONFIG: saved when its address fits the network, refused otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rail-config-wallet-'));
    const file = (content: unknown) => {
      const path = join(dir, `${Math.random()}.json`);
      writeFileSync(path, JSON.stringify(content));
      return path;
    };
    const tron = { network: 'tron', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' };
    expect(loadConfig({ RAIL_ACCOUNT_CONFIG: file({ usdt_wallet: tron }) }).accountSettings.usdtWallet).toEqual(tron);
    expect(loadConfig({}).accountSettings.usdtWallet).toBeUndefined();
    expect(() => loadConfig({ RAIL_ACCOUNT_CONFIG: file({ usdt_wallet: { network: 'ethereum', address: tron.address } }) })).toThrow(/usdt_wallet\.address/);
  });

  test('rate limits, proxy hops and the demo switch (docs/security.md)', () => {
    expect(loadConfig({})).toMatchObject({ rateLimits: DEFAULT_RATE_LIMITS, trustedProxyHops: 0, demo: 'auto' });
    const config = loadConfig({ RAIL_RATE_LIMITS: 'confirm.per_key=10/60', RAIL_TRUSTED_PROXY_HOPS: '2', RAIL_DEMO: 'off' });
    expect(config.rateLimits?.confirm.perKey).toEqual({ limit: 10, windowSeconds: 60 });
    expect(config).toMatchObject({ trustedProxyHops: 2, demo: 'off' });
    expect(loadConfig({ RAIL_RATE_LIMITS: 'off' }).rateLimits).toBeNull();
    expect(() => loadConfig({ RAIL_RATE_LIMITS: 'confirm=1' })).toThrow(/RAIL_RATE_LIMITS/);
    expect(() => loadConfig({ RAIL_DEMO: 'maybe' })).toThrow(/RAIL_DEMO/);
  });

  test('RAIL_WEBHOOK_URL is an http(s) URL; a value without a scheme, or of another scheme, stops the start', () => {
    expect(loadConfig({ RAIL_WEBHOOK_URL: 'http://127.0.0.1:8000/hook' }).webhookUrl).toBe('http://127.0.0.1:8000/hook');
    for (const value of ['localhost:8000/hook', 'data:,x', 'ftp://example.com/hook']) {
      expect(() => loadConfig({ RAIL_WEBHOOK_URL: value }), value).toThrow(/RAIL_WEBHOOK_URL/);
    }
  });

  test('bound for other machines, one public URL set and the other left to its local default is warned about at start', () => {
    expect(loadConfig({ RAIL_HOST: '0.0.0.0' }).publicUrlWarning).toBeUndefined();
    expect(loadConfig({ RAIL_HOST: '0.0.0.0', RAIL_PUBLIC_BASE_URL: 'https://api.example.com', RAIL_PUBLIC_JS_URL: 'https://js.example.com' }).publicUrlWarning).toBeUndefined();
    // Bound to one address (npm run dev, the embedded server), the local default is the URL browsers use.
    expect(loadConfig({ RAIL_HOST: '127.0.0.1', RAIL_PUBLIC_JS_URL: 'http://localhost:5174' }).publicUrlWarning).toBeUndefined();
    expect(loadConfig({ RAIL_HOST: '0.0.0.0', RAIL_PUBLIC_JS_URL: 'https://js.example.com' }).publicUrlWarning).toMatch(
      /^RAIL_PUBLIC_BASE_URL is not set, so it is http:\/\/127\.0\.0\.1:8080, .*vault at RAIL_PUBLIC_BASE_URL/,
    );
    expect(loadConfig({ RAIL_HOST: '::', RAIL_PUBLIC_BASE_URL: 'https://api.example.com' }).publicUrlWarning).toMatch(/^RAIL_PUBLIC_JS_URL is not set, so it is http:\/\/127\.0\.0\.1:8081/);
  });

  test('PostgreSQL prepared statements: on by default, off for a pooler that cannot keep them (docs/operations.md)', () => {
    expect(loadConfig({}).pgPreparedStatements).toBe(true);
    expect(loadConfig({ RAIL_PG_PREPARED_STATEMENTS: 'off' }).pgPreparedStatements).toBe(false);
    expect(() => loadConfig({ RAIL_PG_PREPARED_STATEMENTS: 'no' })).toThrow(/RAIL_PG_PREPARED_STATEMENTS/);
  });

  test('PostgreSQL pool size: 16 connections per process by default, RAIL_PG_POOL_SIZE from 2 to 1000 (docs/operations.md)', () => {
    expect(loadConfig({}).pgPoolSize).toBe(16);
    expect(loadConfig({ RAIL_PG_POOL_SIZE: '4' }).pgPoolSize).toBe(4);
    for (const value of ['1', '0', '1001', '2.5', 'many']) expect(() => loadConfig({ RAIL_PG_POOL_SIZE: value }), value).toThrow(/RAIL_PG_POOL_SIZE/);
  });

  test('PostgreSQL key look-ups kept in memory: on by default, off to read the key at every request (docs/operations.md)', () => {
    expect(loadConfig({}).pgKeyLookups).toBe(true);
    expect(loadConfig({ RAIL_PG_KEY_LOOKUPS: 'off' }).pgKeyLookups).toBe(false);
    expect(() => loadConfig({ RAIL_PG_KEY_LOOKUPS: 'no' })).toThrow(/RAIL_PG_KEY_LOOKUPS/);
  });

  test('security e-mail and key rotation settings (docs/keys.md)', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, securityEmailFrom: 'Rail security <security@rail.local>', keys: { rotationLimit: { limit: 10, windowSeconds: 3600 } } });
    const config = loadConfig({ RAIL_SMTP_URL: 'smtps://user:pass@mail.example.com:465', RAIL_SECURITY_EMAIL_FROM: 'ops@example.com', RAIL_KEY_ROTATION_LIMIT: '3/60' });
    expect(config).toMatchObject({ smtpUrl: 'smtps://user:pass@mail.example.com:465', securityEmailFrom: 'ops@example.com', keys: { rotationLimit: { limit: 3, windowSeconds: 60 } } });
    expect(() => loadConfig({ RAIL_SMTP_URL: 'http://mail.example.com' })).toThrow(/RAIL_SMTP_URL/);
    expect(() => loadConfig({ RAIL_KEY_ROTATION_LIMIT: '0/60' })).toThrow(/RAIL_KEY_ROTATION_LIMIT/);
    expect(() => loadConfig({ RAIL_KEY_ROTATION_LIMIT: 'lots' })).toThrow(/RAIL_KEY_ROTATION_LIMIT/);
  });

  test('defaults follow operations.md', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      jsPort: 8081,
      publicBaseUrl: 'http://127.0.0.1:8080',
      publicJsUrl: 'http://127.0.0.1:8081',
      dataDir: resolve('./.rail-data'),
      databaseUrl: undefined,
      logLevel: 'info',
      paymentSyncIntervalMs: 5000,
      accountSettings: DEFAULT_ACCOUNT_SETTINGS,
    });
    expect(config.webhookRetryScheduleSeconds).toEqual([60, 300, 300, 600, 600, 600, 600, 600, 3600, 3600, 3600, 3600, 3600, 21600, 21600, 21600]);
  });

  test('reads every variable', () => {
    const config = loadConfig({
      RAIL_HOST: '0.0.0.0',
      RAIL_PORT: '9000',
      RAIL_JS_PORT: '9001',
      RAIL_PUBLIC_BASE_URL: 'https://api.example.com/',
      RAIL_PUBLIC_JS_URL: 'https://js.example.com',
      DATABASE_URL: 'postgres://u@h/db',
      RAIL_WEBHOOK_URL: 'https://merchant.example.com/hook',
      RAIL_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      RAIL_WEBHOOK_RETRY_SCHEDULE: '1,2,3',
      RAIL_LOG_LEVEL: 'debug',
      RAIL_PAYMENT_SYNC_INTERVAL_MS: '0',
      RAIL_OPERATOR_EMAIL: 'ops@example.com',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      jsPort: 9001,
      publicBaseUrl: 'https://api.example.com',
      publicJsUrl: 'https://js.example.com',
      databaseUrl: 'postgres://u@h/db',
      webhookUrl: 'https://merchant.example.com/hook',
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      webhookRetryScheduleSeconds: [1, 2, 3],
      logLevel: 'debug',
      paymentSyncIntervalMs: 0,
      operatorEmail: 'ops@example.com',
    });
  });

  test.each([
    { RAIL_PORT: 'eighty' },
    { DATABASE_URL: 'mysql://x' },
    { RAIL_WEBHOOK_SECRET: 'nope' },
    { RAIL_WEBHOOK_SECRET: 'whsec_abc' },
    { RAIL_WEBHOOK_SECRET: 'whsec_not base64 at all, really not at all!!' },
    { RAIL_WEBHOOK_RETRY_SCHEDULE: '1,,2' },
    { RAIL_LOG_LEVEL: 'loud' },
    { RAIL_PAYMENT_SYNC_INTERVAL_MS: '-1' },
    { RAIL_PAYMENT_SYNC_INTERVAL_MS: '2.5' },
    { RAIL_OPERATOR_TOTP_SECRET: 'not base32!' },
  ])('refuses %o', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });

  test('webhook attempt timeout and delivery lease: the lease must outlast the timeout by LEASE_MARGIN_MS, or the start stops', () => {
    expect(loadConfig({})).toMatchObject({ webhookTimeoutMs: DEFAULT_TIMEOUT_MS, webhookLeaseMs: DEFAULT_LEASE_MS });
    expect(loadConfig({ RAIL_WEBHOOK_TIMEOUT_MS: '30000', RAIL_WEBHOOK_LEASE_MS: '90000' })).toMatchObject({ webhookTimeoutMs: 30_000, webhookLeaseMs: 90_000 });
    for (const env of [
      { RAIL_WEBHOOK_TIMEOUT_MS: '60000' },
      { RAIL_WEBHOOK_LEASE_MS: '10000' },
      { RAIL_WEBHOOK_TIMEOUT_MS: '30000', RAIL_WEBHOOK_LEASE_MS: String(30_000 + LEASE_MARGIN_MS) },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(/RAIL_WEBHOOK_LEASE_MS and RAIL_WEBHOOK_TIMEOUT_MS: the delivery lease .* must be longer than the attempt timeout/);
    }
    expect(() => loadConfig({ RAIL_WEBHOOK_TIMEOUT_MS: 'soon' })).toThrow(/RAIL_WEBHOOK_TIMEOUT_MS/);
    // Longer than an Idempotency-Key's lease allows: a retry would run beside the attempt (or the increase) it waits for.
    expect(() => loadConfig({ RAIL_WEBHOOK_TIMEOUT_MS: '45000', RAIL_WEBHOOK_LEASE_MS: '90000' })).toThrow(/RAIL_WEBHOOK_TIMEOUT_MS \(45000 ms\) plus 15000 ms must be shorter than the Idempotency-Key's lease/);
    expect(() => loadConfig({ RAIL_RAIL_CALL_TIMEOUT_MS: '30000', RAIL_RECOVER_AFTER_MS: '120000' })).toThrow(/twice RAIL_RAIL_CALL_TIMEOUT_MS \(30000 ms\)/);
    expect(loadConfig({ RAIL_RAIL_CALL_TIMEOUT_MS: '29999', RAIL_RECOVER_AFTER_MS: '120000' })).toMatchObject({ recovery: { railCallTimeoutMs: 29_999 } });
  });

  test('RAIL_ACCOUNT_CONFIG switches settings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rail-config-'));
    const file = join(dir, 'account.json');
    writeFileSync(
      file,
      JSON.stringify({
        merchant_name: 'Shop',
        merchant_origins: ['https://shop.example.com/path'],
        allow_localhost_frame_ancestors: false,
        rails: [{ rail: 'upi', currencies: ['INR'], modes: ['test'], capabilities: { test: { refunds: true, manual_capture: true } } }],
      }),
    );
    const settings = loadConfig({ RAIL_ACCOUNT_CONFIG: file }).accountSettings;
    expect(settings.merchantName).toBe('Shop');
    expect(settings.merchantOrigins).toEqual(['https://shop.example.com']);
    expect(settings.allowLocalhostFrameAncestors).toBe(false);
    expect(settings.rails[0]?.capabilities.test).toEqual({ refunds: true, metadataUpdates: false, recurring: false, manualCapture: true, disputes: false });
    expect(settings.billingProcessor).toBeUndefined();
    writeFileSync(file, JSON.stringify({ billing_processor: 'simulator' }));
    expect(loadConfig({ RAIL_ACCOUNT_CONFIG: file }).accountSettings.billingProcessor).toBe('simulator');
    writeFileSync(file, JSON.stringify({ billing_processor: 'chargebee' }));
    expect(() => loadConfig({ RAIL_ACCOUNT_CONFIG: file })).toThrow(ConfigError);
    writeFileSync(file, JSON.stringify({ rails: [{ rail: 'teleport', currencies: ['INR'], modes: ['test'] }] }));
    expect(() => loadConfig({ RAIL_ACCOUNT_CONFIG: file })).toThrow(ConfigError);
  });
});
