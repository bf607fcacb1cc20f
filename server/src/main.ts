/**
 * Entry point: reads the configuration, opens the store (SQLite by default, PostgreSQL with DATABASE_URL),
 * migrates, bootstraps, wires the concrete adapters and starts both listeners: the API at base_url and the runtime
 * script and hosted frame at js_url. SIGTERM/SIGINT: stop accepting, finish in-flight requests, close the store,
 * exit 0.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, createJsApp } from './app';
import { compose } from './compose';
import type { BootstrapSecretsFile } from './core/accounts/bootstrap';
import { systemClock } from './kernel/clock';
import { cryptoIds } from './kernel/ids';
import { purgeExpiredIdempotencyKeys } from './core/auth/idempotency';
import { advanceDueCollect } from './core/collect/advance-collect';
import { WaitingPaymentSweep } from './core/payments/sweep-waiting-payments';
import { expireLapsedAuthorizations } from './core/payments/open-authorization';
import { StuckObjectRecovery } from './core/recovery/recover-stuck-objects';
import { sendDueSecurityEmails } from './core/security-emails/send-security-emails';
import { SmtpMailer } from './mail/smtp-mailer';
import { billingProcessorTick } from './core/subscriptions/subscription-operations';
import { wipeExpiredVaultTokens } from './core/vault/wipe-expired-vault-tokens';
import { ConfigError, loadConfig, type Config } from './config';
import { answerClientErrors } from './http/client-errors';
import { readRuntimeManifest } from './http/js-app';
import { RateLimiter } from './http/rate-limit';
import { createLogger, type Logger } from './logger';
import { loadOrCreateVaultKey, VAULT_KEY_FILE } from './vault/vault-cipher';
import { defaultWebhookDeliveryConfig } from './webhooks/delivery';
import { WebhookDispatcher } from './webhooks/dispatcher';

const SHUTDOWN_GRACE_MS = 10_000;
const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;
/** How often the security e-mail outbox is sent (when RAIL_SMTP_URL is set). */
const SECURITY_EMAIL_INTERVAL_MS = 5000;
/** Waiting payments asked about per sweep tick. */
const PAYMENT_SYNC_BATCH = 100;

/** The generated test keys, kept in the data directory (mode 0600) so a restart prints and uses the same ones. */
function fileSecrets(dataDir: string): BootstrapSecretsFile {
  const path = join(dataDir, 'bootstrap-keys.json');
  return {
    async read() {
      try {
        const parsed = JSON.parse(await readFile(path, 'utf8')) as { test_secret_key?: unknown; test_publishable_key?: unknown };
        return {
          ...(typeof parsed.test_secret_key === 'string' ? { testSecretKey: parsed.test_secret_key } : {}),
          ...(typeof parsed.test_publishable_key === 'string' ? { testPublishableKey: parsed.test_publishable_key } : {}),
        };
      } catch {
        return {};
      }
    },
    async write(values) {
      await mkdir(dataDir, { recursive: true });
      await writeFile(path, `${JSON.stringify({ test_secret_key: values.testSecretKey, test_publishable_key: values.testPublishableKey }, null, 2)}\n`, {
        mode: 0o600,
      });
      await chmod(path, 0o600);
    },
  };
}

/** Origins allowed to frame the hosted frame: the merchant's, localhost in test integrations, and the demo page. */
function frameAncestors(config: Config): string[] {
  const settings = config.accountSettings;
  const origins = new Set<string>(settings.merchantOrigins);
  if (settings.allowLocalhostFrameAncestors) {
    origins.add('http://localhost:*');
    origins.add('http://127.0.0.1:*');
  }
  origins.add(new URL(config.publicBaseUrl).origin);
  return [...origins];
}

function listen(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number): Promise<ServerType> {
  return new Promise((resolveListen, reject) => {
    const server = serve({ fetch, hostname: host, port }, () => resolveListen(server));
    server.once('error', reject);
  });
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolveClose) => {
    server.close(() => resolveClose());
    (server as Server).closeIdleConnections?.();
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rail: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger: Logger = createLogger(config.logLevel);

  const vaultKey = await loadOrCreateVaultKey(config.vaultKey, config.dataDir);
  if (vaultKey.source === 'generated') logger.warn(`generated a vault key in ${join(config.dataDir, VAULT_KEY_FILE)}; set RAIL_VAULT_KEY in production`);
  const { engine, store, boot, core } = await compose({
    databaseUrl: config.databaseUrl,
    sqliteFile: join(config.dataDir, 'rail.sqlite'),
    onIdleConnectionError: (error) => logger.warn({ error: error.message }, 'an idle PostgreSQL connection failed; the pool replaces it'),
    clock: systemClock,
    ids: cryptoIds,
    publicBaseUrl: config.publicBaseUrl,
    vaultKey: vaultKey.key,
    settings: config.accountSettings,
    recovery: config.recovery,
    keys: config.keys,
    secretsFile: fileSecrets(config.dataDir),
    bootstrap: {
      testSecretKey: config.testSecretKey,
      testPublishableKey: config.testPublishableKey,
      operatorEmail: config.operatorEmail,
      operatorPassword: config.operatorPassword,
      operatorTotpSecret: config.operatorTotpSecret,
      webhookUrl: config.webhookUrl,
      webhookSecret: config.webhookSecret,
    },
  });
  for (const warning of boot.warnings) logger.warn(warning);

  const webhooks = defaultWebhookDeliveryConfig({ retryScheduleSeconds: config.webhookRetryScheduleSeconds });
  const scheduleSeconds = webhooks.retryScheduleSeconds.reduce((sum, seconds) => sum + seconds, 0);
  if (scheduleSeconds < 24 * 3600) {
    logger.warn({ total_seconds: scheduleSeconds }, 'RAIL_WEBHOOK_RETRY_SCHEDULE spans less than 24 hours');
  }
  const dispatcher = new WebhookDispatcher({ store, clock: systemClock }, webhooks, { logger: logger.child({ component: 'webhooks' }) });

  let ready = false;
  const isReady = () => ready;
  const api = createApp({
    ...core,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    publicJsUrl: config.publicJsUrl,
    isReady,
    webhooks,
    rateLimits: config.rateLimits === null ? undefined : { limiter: new RateLimiter(systemClock), limits: config.rateLimits, trustedProxyHops: config.trustedProxyHops },
    demo:
      config.demo === 'off'
        ? undefined
        : {
            testSecretKey: boot.testSecretKey,
            testPublishableKey: boot.testPublishableKey,
            pagePaths: [resolve('demo/index.html')],
            offWhenLiveKeysExist: config.demo === 'auto',
          },
  });
  const js = createJsApp({
    logger,
    distDir: resolve('dist'),
    publicBaseUrl: config.publicBaseUrl,
    publicJsUrl: config.publicJsUrl,
    frameAncestors: frameAncestors(config),
    isReady,
  });

  // Waiting payments resolve (and their webhook events are written) without anyone reading them.
  const waitingSweep = new WaitingPaymentSweep(
    core,
    {
      batchSize: PAYMENT_SYNC_BATCH,
      onError: (payment, error) => logger.warn({ err: error, payment_id: payment.paymentId, rail: payment.rail }, 'rail sync of a waiting payment failed'),
    },
  );
  // What a crash or a silent rail left in processing (payments) or pending (refunds) is asked about again.
  const recovery = new StuckObjectRecovery(core, {
    batchSize: PAYMENT_SYNC_BATCH,
    onError: (object, error) => logger.warn({ err: error, object_type: object.objectType, object_id: object.objectId }, 'recovery of a stuck object failed'),
  });
  let sweeping = false;
  const paymentSync =
    config.paymentSyncIntervalMs > 0
      ? setInterval(() => {
          // A lap that outlasts the interval is not overlapped by the next tick.
          if (sweeping) return;
          sweeping = true;
          // Collections and settlements take their due steps (and send their events) without anyone reading them.
          const collectSteps = advanceDueCollect(core, (scope) => core.collect?.providerFor(scope.mode), null).catch((error: unknown) =>
            logger.warn({ err: error }, 'collect sweep failed'),
          );
          const recovered = recovery
            .step()
            .then((step) => {
              if (step.resolved > 0) logger.info({ checked: step.checked, resolved: step.resolved }, 'recovered payments or refunds left in flight');
            })
            .catch((error: unknown) => logger.warn({ err: error }, 'recovery sweep failed'));
          Promise.all([waitingSweep.step().catch((error: unknown) => logger.warn({ err: error }, 'waiting-payment sweep failed')), collectSteps, recovered]).finally(
            () => (sweeping = false),
          );
        }, config.paymentSyncIntervalMs)
      : undefined;
  paymentSync?.unref();

  // Housekeeping: expired Idempotency-Key rows are re-claimable at once (this only keeps the table small); the card
  // ciphertext of tokens that expired unused is deleted (a used token's already was).
  const sweep = setInterval(() => {
    purgeExpiredIdempotencyKeys({ store, clock: systemClock }).catch((error: unknown) => logger.warn({ err: error }, 'idempotency sweep failed'));
    wipeExpiredVaultTokens({ store, clock: systemClock }).catch((error: unknown) => logger.warn({ err: error }, 'vault sweep failed'));
    // The simulated billing processor renews due test subscriptions (docs/capabilities.md).
    billingProcessorTick(core, boot.account).catch((error: unknown) => logger.warn({ err: error }, 'subscription renewals failed'));
    // Manual capture: authorizations past their validity expire, with their event, without anyone reading them.
    expireLapsedAuthorizations(core, PAYMENT_SYNC_BATCH).catch((error: unknown) => logger.warn({ err: error }, 'authorization expiry sweep failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  sweep.unref();

  // Security e-mails (key created, rotated, revoked) leave the outbox over SMTP; without RAIL_SMTP_URL they stay
  // listed for operators (GET /v1/security-emails).
  const mailer = config.smtpUrl === undefined ? undefined : new SmtpMailer({ url: config.smtpUrl, from: config.securityEmailFrom });
  let mailing = false;
  const mail =
    mailer === undefined
      ? undefined
      : setInterval(() => {
          if (mailing) return;
          mailing = true;
          sendDueSecurityEmails(core, mailer)
            .catch((error: unknown) => logger.warn({ err: error }, 'security e-mail sweep failed'))
            .finally(() => (mailing = false));
        }, SECURITY_EMAIL_INTERVAL_MS);
  mail?.unref();

  // Read before listening, so the banner is out by the time /health answers.
  const runtimeManifest = await readRuntimeManifest(js);
  const apiServer = await listen(api.fetch, config.host, config.port);
  const jsServer = await listen(js.fetch, config.host, config.jsPort);
  answerClientErrors(apiServer as Server, logger);
  answerClientErrors(jsServer as Server, logger);
  ready = true;
  dispatcher.start();

  const lines = [
    '',
    'Rail is running',
    `  base_url              ${config.publicBaseUrl}`,
    `  js_url                ${config.publicJsUrl}`,
    ...(runtimeManifest === undefined
      ? ['  pinned runtime        (not built: run npm run build)']
      : [`  pinned runtime        ${runtimeManifest.runtime.src}`, `  runtime integrity     ${runtimeManifest.runtime.integrity}`]),
    `  store                 ${engine === 'sqlite' ? `SQLite ${join(config.dataDir, 'rail.sqlite')}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  test secret key       ${boot.testSecretKey}`,
    `  test publishable key  ${boot.testPublishableKey}`,
    `  webhook endpoint      ${boot.webhook.url ?? '(none: set RAIL_WEBHOOK_URL; events are recorded as no_endpoint)'}`,
    // A secret the operator set is not echoed; a generated one is shown so the receiver can be configured.
    `  webhook secret        ${boot.webhook.secretSource === 'env' ? '(from RAIL_WEBHOOK_SECRET)' : boot.webhook.secret}`,
    `  demo checkout         ${config.publicBaseUrl}/demo`,
  ];
  if (boot.createdOperator) {
    lines.push(
      '  operator (first boot; shown once, store it now):',
      `    email               ${boot.createdOperator.email}`,
      `    password            ${boot.createdOperator.password}`,
      `    TOTP secret         ${boot.createdOperator.totpSecret}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    clearInterval(sweep);
    clearInterval(paymentSync);
    clearInterval(mail);
    mailer?.close();
    await Promise.all([closeServer(apiServer), closeServer(jsServer), dispatcher.stop()]);
    await store.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`rail: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
