/**
 * Starts a whole Rail server in this process from a parsed Config: opens the store (SQLite by default, PostgreSQL
 * with DATABASE_URL), migrates, bootstraps, wires the concrete adapters, starts both listeners (the API at base_url,
 * the runtime script and hosted frame at js_url) and the background jobs. Returns the running server and its
 * `stop()`, which stops accepting, finishes in-flight requests and closes the store.
 *
 * main.ts (the `npm start` process) and the embeddable package (packages/server: `startRail()` and its CLI) both
 * start the server through here; only they know where the built assets (dist/) and the demo page live.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { createApp, createJsApp } from './app';
import { compose } from './compose';
import type { BootstrapSecretsFile } from './core/accounts/bootstrap';
import { systemClock } from './kernel/clock';
import { cryptoIds } from './kernel/ids';
import { purgeExpiredIdempotencyKeys } from './core/auth/idempotency';
import { deleteFullRateLimitBuckets } from './core/auth/delete-full-rate-limit-buckets';
import { sweepCollect } from './core/collect/advance-collect';
import { WaitingPaymentSweep } from './core/payments/sweep-waiting-payments';
import { expireLapsedAuthorizations } from './core/payments/open-authorization';
import { StuckObjectRecovery } from './core/recovery/recover-stuck-objects';
import { sweepOrphanBlobs } from './core/disputes/sweep-orphan-blobs';
import { sendDueSecurityEmails } from './core/security-emails/send-security-emails';
import { SmtpMailer } from './mail/smtp-mailer';
import { billingProcessorTick } from './core/subscriptions/renew-subscriptions';
import { wipeExpiredVaultTokens } from './core/vault/wipe-expired-vault-tokens';
import type { Config } from './config';
import { answerClientErrors } from './http/client-errors';
import { RuntimeBuild } from './http/js-app';
import { RateLimiter, SharedRateLimiter } from './http/rate-limit';
import type { Logger } from './logger';
import { loadOrCreateVaultKey, VAULT_KEY_FILE } from './vault/vault-cipher';
import { defaultWebhookDeliveryConfig } from './webhooks/delivery';
import { WebhookDispatcher } from './webhooks/dispatcher';

const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;
/** How often stored file bytes without a record are looked for (and once at start). */
const ORPHAN_BLOB_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** How often the security e-mail outbox is sent (when RAIL_SMTP_URL is set). */
const SECURITY_EMAIL_INTERVAL_MS = 5000;
/** Waiting payments asked about per sweep tick. */
const PAYMENT_SYNC_BATCH = 100;

export interface StartServerOptions {
  config: Config;
  logger: Logger;
  /** The built runtime and frame (`dist/` of `npm run build`: runtime/rail.js, frame/index.html, ...). */
  distDir: string;
  /** The demo checkout page(s), first existing wins (demo/index.html). */
  demoPagePaths: readonly string[];
  /** Called with the banner lines before the listeners answer (so a banner is out by the time /health answers). */
  announce?: (banner: readonly string[]) => void;
}

export interface RunningServer {
  /** The API's public URL; a configured URL that names port 0 carries the port the listener was given. */
  baseUrl: string;
  jsUrl: string;
  apiPort: number;
  jsPort: number;
  engine: 'sqlite' | 'postgres';
  secretKey: string;
  publishableKey: string;
  /** The banner lines `npm start` prints (URLs, pinned runtime, store, keys, webhook, demo, first-boot operator). */
  banner: string[];
  /** Stops accepting, finishes in-flight requests, stops the background jobs and closes the store. Idempotent. */
  stop(): Promise<void>;
}

/** The generated test keys, kept in the data directory (mode 0600) so a restart prints and uses the same ones. */
function fileSecrets(dataDir: string): BootstrapSecretsFile {
  const path = join(dataDir, 'bootstrap-keys.json');
  return {
    async read() {
      try {
        const parsed = JSON.parse(await readFile(path, 'utf8')) as { test_secret_key?: unknown; test_publishable_key?: unknown };
        // object-shapes: once per start
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
function frameAncestors(config: Config, publicBaseUrl: string): string[] {
  const settings = config.accountSettings;
  const origins = new Set<string>(settings.merchantOrigins);
  if (settings.allowLocalhostFrameAncestors) {
    origins.add('http://localhost:*');
    origins.add('http://127.0.0.1:*');
  }
  origins.add(new URL(publicBaseUrl).origin);
  return [...origins];
}

/** An app's fetch; `env` carries the Node adapter's bindings (the IncomingMessage: http/request-body.ts). */
type Handler = (request: Request, env?: unknown) => Response | Promise<Response>;

const notReady: Handler = () => new Response('starting', { status: 503, headers: { 'retry-after': '1' } });

/**
 * A listener bound before the application exists, so port 0 can be resolved to the port it got before the public
 * URLs are fixed; it answers 503 until `handle()` gives it the application.
 */
async function bind(host: string, port: number): Promise<{ server: ServerType; port: number; handle(handler: Handler): void }> {
  let current: Handler = notReady;
  const server = createAdaptorServer({ fetch: (request: Request, env: unknown) => current(request, env), hostname: host });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    handle(handler) {
      current = handler;
    },
  };
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolveClose) => {
    if (!server.listening) return resolveClose();
    server.close(() => resolveClose());
    (server as Server).closeIdleConnections?.();
  });
}

/** A configured public URL that names port 0 takes the port its listener was given. */
function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  if (parsed.port !== '0') return url;
  parsed.port = String(port);
  return parsed.toString().replace(/\/$/, '');
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config, logger } = options;
  const apiListener = await bind(config.host, config.port);
  let jsListener: Awaited<ReturnType<typeof bind>>;
  try {
    jsListener = await bind(config.host, config.jsPort);
  } catch (error) {
    await closeServer(apiListener.server);
    throw error;
  }
  const publicBaseUrl = withPort(config.publicBaseUrl, apiListener.port);
  const publicJsUrl = withPort(config.publicJsUrl, jsListener.port);

  let ready = false;
  const isReady = () => ready;
  // Made first: it starts reading, hashing and compressing (on the thread pool) the runtime, its archived releases
  // and the frame, which then overlaps opening, migrating and bootstrapping the store instead of following it. The
  // banner waits only for the runtime script (runtime.current()), not for the releases or the frame.
  const runtime = new RuntimeBuild({ logger, distDir: options.distDir, publicJsUrl });
  const js = createJsApp({
    logger,
    distDir: options.distDir,
    publicBaseUrl,
    publicJsUrl,
    frameAncestors: frameAncestors(config, publicBaseUrl),
    isReady,
    runtime,
  });

  let composed: Awaited<ReturnType<typeof compose>>;
  try {
    // Read while the store opens and migrates (on PostgreSQL its first connection takes some 30 ms to open); compose
    // awaits it before anything needs the key, and a failed read fails the start from there.
    const vaultKey = loadOrCreateVaultKey(config.vaultKey, config.dataDir).then((loaded) => {
      if (loaded.source === 'generated') logger.warn(`generated a vault key in ${join(config.dataDir, VAULT_KEY_FILE)}; set RAIL_VAULT_KEY in production`);
      return loaded.key;
    });
    // Until compose awaits it, a failed read must not count as an unhandled rejection.
    vaultKey.catch(() => undefined);
    composed = await compose({
      databaseUrl: config.databaseUrl,
      poolSize: config.pgPoolSize,
      pgPreparedStatements: config.pgPreparedStatements,
      pgStatistics: config.pgAnalyze && { onWarning: (message) => logger.warn(message) },
      pgKeyLookups: config.pgKeyLookups && { onWarning: (message) => logger.warn(message) },
      sqliteFile: join(config.dataDir, 'rail.sqlite'),
      onIdleConnectionError: (error) => logger.warn({ error: error.message }, 'an idle PostgreSQL connection failed; the pool replaces it'),
      clock: systemClock,
      ids: cryptoIds,
      publicBaseUrl,
      vaultKey,
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
  } catch (error) {
    await Promise.all([closeServer(apiListener.server), closeServer(jsListener.server)]);
    throw error;
  }
  const { engine, store, boot, core } = composed;
  for (const warning of boot.warnings) logger.warn(warning);
  if (config.publicUrlWarning !== undefined) logger.warn(config.publicUrlWarning);

  const webhooks = defaultWebhookDeliveryConfig({
    retryScheduleSeconds: config.webhookRetryScheduleSeconds,
    timeoutMs: config.webhookTimeoutMs,
    leaseMs: config.webhookLeaseMs,
  });
  const scheduleSeconds = webhooks.retryScheduleSeconds.reduce((sum, seconds) => sum + seconds, 0);
  if (scheduleSeconds < 24 * 3600) {
    logger.warn({ total_seconds: scheduleSeconds }, 'RAIL_WEBHOOK_RETRY_SCHEDULE spans less than 24 hours');
  }
  const dispatcher = new WebhookDispatcher({ store, clock: systemClock }, webhooks, { logger: logger.child({ component: 'webhooks' }) });

  // object-shapes: once per start
  const api = createApp({
    ...core,
    logger,
    publicBaseUrl,
    publicJsUrl,
    isReady,
    webhooks,
    rateLimits:
      config.rateLimits === null
        ? undefined
        : {
            limiter: new RateLimiter(systemClock),
            shared: new SharedRateLimiter(store.rateLimitBuckets, systemClock),
            failedAuthentications: new SharedRateLimiter(store.rateLimitBuckets, systemClock),
            limits: config.rateLimits,
            trustedProxyHops: config.trustedProxyHops,
          },
    demo:
      config.demo === 'off'
        ? undefined
        : {
            testSecretKey: boot.testSecretKey,
            pagePaths: options.demoPagePaths,
            offWhenLiveKeysExist: config.demo === 'auto',
          },
  });

  // Waiting payments resolve (and their webhook events are written) without anyone reading them.
  const waitingSweep = new WaitingPaymentSweep(core, {
    batchSize: PAYMENT_SYNC_BATCH,
    onError: (payment, error) => logger.warn({ err: error, payment_id: payment.paymentId, rail: payment.rail }, 'rail sync of a waiting payment failed'),
  });
  // What a crash or a silent rail left in processing (payments) or pending (refunds) is asked about again.
  const recovery = new StuckObjectRecovery(core, {
    batchSize: PAYMENT_SYNC_BATCH,
    onError: (object, error) => logger.warn({ err: error, object_type: object.objectType, object_id: object.objectId }, 'recovery of a stuck object failed'),
  });
  let sweeping: Promise<unknown> | undefined;
  // The recovery job has a gate of its own: a step can last about a recovery lease (RecoveryPolicy.leaseMs) when rails are silent, and
  // the waiting-payment and Collect sweeps need not wait for it.
  let recovering: Promise<unknown> | undefined;
  const paymentSync =
    config.paymentSyncIntervalMs > 0
      ? setInterval(() => {
          // A lap that outlasts the interval is not overlapped by the next tick.
          recovering ??= recovery
            .step()
            .then((step) => {
              if (step.resolved > 0) logger.info({ checked: step.checked, resolved: step.resolved }, 'recovered payments or refunds left in flight');
            })
            .catch((error: unknown) => logger.warn({ err: error }, 'recovery sweep failed'))
            .finally(() => (recovering = undefined));
          if (sweeping) return;
          // Collections and settlements take their due steps (and send their events) without anyone reading them, and
          // the balance deltas the steps recorded are folded into the balance rows.
          const collectSteps = sweepCollect(core, (scope) => core.collect?.providerFor(scope.mode)).catch((error: unknown) =>
            logger.warn({ err: error }, 'collect sweep failed'),
          );
          sweeping = Promise.all([waitingSweep.step().catch((error: unknown) => logger.warn({ err: error }, 'waiting-payment sweep failed')), collectSteps]).finally(
            () => (sweeping = undefined),
          );
        }, config.paymentSyncIntervalMs)
      : undefined;
  paymentSync?.unref();

  // Housekeeping: expired Idempotency-Key rows are re-claimable at once (this only keeps the table small); the card
  // ciphertext of tokens that expired unused is deleted (a used token's already was); shared rate-limit buckets that
  // are full again count nothing and go.
  const sweep = setInterval(() => {
    purgeExpiredIdempotencyKeys({ store, clock: systemClock }).catch((error: unknown) => logger.warn({ err: error }, 'idempotency sweep failed'));
    deleteFullRateLimitBuckets({ store, clock: systemClock }).catch((error: unknown) => logger.warn({ err: error }, 'rate-limit bucket sweep failed'));
    wipeExpiredVaultTokens({ store, clock: systemClock }).catch((error: unknown) => logger.warn({ err: error }, 'vault sweep failed'));
    // The simulated billing processor renews due test subscriptions (docs/capabilities.md).
    billingProcessorTick(core, boot.account).catch((error: unknown) => logger.warn({ err: error }, 'subscription renewals failed'));
    // Manual capture: authorizations past their validity expire, with their event, without anyone reading them.
    expireLapsedAuthorizations(core, PAYMENT_SYNC_BATCH).catch((error: unknown) => logger.warn({ err: error }, 'authorization expiry sweep failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  sweep.unref();

  // Uploaded bytes that no file record names (a crash between an upload's bytes and its record, a removal that failed
  // after a deletion) go once they are an hour old: looked for at start, then hourly (one listing of the files).
  let sweepingOrphans: Promise<unknown> | undefined;
  const sweepOrphans = (): void => {
    sweepingOrphans ??= sweepOrphanBlobs(core)
      .then((removed) => {
        if (removed > 0) logger.info({ removed }, 'removed uploaded file bytes without a file record');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'orphan file sweep failed'))
      .finally(() => (sweepingOrphans = undefined));
  };
  sweepOrphans();
  const orphanSweep = setInterval(sweepOrphans, ORPHAN_BLOB_SWEEP_INTERVAL_MS);
  orphanSweep.unref();

  // Security e-mails (keys, operators, the wallet, webhook endpoints) leave the outbox over SMTP; without
  // RAIL_SMTP_URL they stay listed for operators (GET /v1/security-emails).
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

  const pinnedRuntime = await runtime.current();
  const banner = [
    `  base_url              ${publicBaseUrl}`,
    `  js_url                ${publicJsUrl}`,
    ...(pinnedRuntime === undefined
      ? ['  pinned runtime        (not built: run npm run build)']
      : [`  pinned runtime        ${pinnedRuntime.src}`, `  runtime integrity     ${pinnedRuntime.integrity}`]),
    `  store                 ${engine === 'sqlite' ? `SQLite ${join(config.dataDir, 'rail.sqlite')}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  test secret key       ${boot.testSecretKey}`,
    `  test publishable key  ${boot.testPublishableKey}`,
    `  webhook endpoint      ${boot.webhook.url ?? '(none: set RAIL_WEBHOOK_URL; events are recorded as no_endpoint)'}`,
    // A secret the operator set is not echoed; a generated one is shown so the receiver can be configured.
    `  webhook secret        ${boot.webhook.secretSource === 'env' ? '(from RAIL_WEBHOOK_SECRET)' : boot.webhook.secret}`,
    `  demo checkout         ${publicBaseUrl}/demo`,
  ];
  if (boot.createdOperator) {
    banner.push(
      '  operator (first boot; shown once, store it now):',
      `    email               ${boot.createdOperator.email}`,
      `    password            ${boot.createdOperator.password}`,
      `    TOTP secret         ${boot.createdOperator.totpSecret}`,
    );
  }

  // The banner is out before the listeners answer, so it is there by the time /health answers.
  options.announce?.(banner);
  apiListener.handle(api.fetch);
  jsListener.handle(js.fetch);
  answerClientErrors(apiListener.server as Server, logger);
  answerClientErrors(jsListener.server as Server, logger);
  ready = true;
  dispatcher.start();

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      ready = false;
      clearInterval(sweep);
      clearInterval(orphanSweep);
      clearInterval(paymentSync);
      clearInterval(mail);
      mailer?.close();
      await Promise.all([closeServer(apiListener.server), closeServer(jsListener.server), dispatcher.stop()]);
      // A sweep lap still running uses the store: let it finish first.
      await sweeping;
      await recovering;
      await sweepingOrphans;
      await store.close();
    })();
    return stopped;
  };

  return {
    baseUrl: publicBaseUrl,
    jsUrl: publicJsUrl,
    apiPort: apiListener.port,
    jsPort: jsListener.port,
    engine,
    secretKey: boot.testSecretKey,
    publishableKey: boot.testPublishableKey,
    banner,
    stop,
  };
}
