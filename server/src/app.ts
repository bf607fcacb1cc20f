/**
 * The two HTTP applications: createApp (the API at base_url) and createJsApp (runtime script and hosted frame at
 * js_url). Both are plain Hono apps, testable with app.request() and no port.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { CoreDeps } from './core/shared/deps';
import { ApiError } from './core/shared/errors';
import type { AppEnv } from './http/env';
import { createErrorHandler, createNotFoundHandler, errorResponse, validationHook } from './http/error-handler';
import { rejectNulInUrl } from './http/middleware/json-body';
import { requestContext } from './http/middleware/request-context';
import { RATE_LIMITED_ROUTES, rateLimit, type RateLimitDeps } from './http/rate-limit';
import { registerAccountRoutes } from './http/routes/account';
import { registerCustomerRoutes } from './http/routes/customers';
import { registerDemoRoutes, type DemoOptions } from './http/routes/demo';
import { registerPaymentOpsRoutes } from './http/routes/payment-ops';
import { registerEventRoutes } from './http/routes/events';
import { registerPaymentRoutes } from './http/routes/payments';
import { registerRefundRoutes } from './http/routes/refunds';
import { registerSimulatorRoutes } from './http/routes/simulator';
import { registerSystemRoutes } from './http/routes/system';
import { registerVaultRoutes, VAULT_PATH_PREFIX } from './http/routes/vault';
import type { Logger } from './logger';
import { defaultWebhookDeliveryConfig, type WebhookDeliveryConfig } from './webhooks/delivery';

export { createJsApp, type JsAppDeps } from './http/js-app';

/** Largest request body the API reads. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

export interface AppDeps extends CoreDeps {
  logger: Logger;
  publicBaseUrl: string;
  publicJsUrl: string;
  /** False while shutting down: /health answers 503. */
  isReady?: () => boolean;
  /** The demo merchant backend and page; absent disables /demo. */
  demo?: DemoOptions | undefined;
  bodyLimitBytes?: number;
  /** Delivery policy for POST /events/{event_id}/retry (the dispatcher gets the same from main.ts). */
  webhooks?: WebhookDeliveryConfig;
  /** Limits on the browser and public surfaces (http/rate-limit.ts); absent limits nothing. */
  rateLimits?: RateLimitDeps | undefined;
}

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: true });
  const core: CoreDeps = { store: deps.store, rails: deps.rails, clock: deps.clock, ids: deps.ids, ...(deps.vault ? { vault: deps.vault } : {}) };
  const jsOrigin = new URL(deps.publicJsUrl).origin;

  app.use('*', requestContext(deps.logger));
  // Browser calls come from the frame (js_url) and merchant pages with publishable keys; no cookies are used.
  // The vault has its own policy (js_url origin only; http/routes/vault.ts).
  const openCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: ['api-key', 'authorization', 'content-type', 'idempotency-key'],
    exposeHeaders: ['x-request-id', 'idempotent-replayed'],
    maxAge: 600,
  });
  app.use('*', async (c, next) => (c.req.path.startsWith(VAULT_PATH_PREFIX) ? next() : openCors(c, next)));
  app.use(
    '*',
    bodyLimit({
      maxSize: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      onError: (c) => errorResponse(c, new ApiError('ERR_2009', 'The request body is too large.')),
    }),
  );
  app.use('*', rejectNulInUrl);
  if (deps.rateLimits !== undefined) {
    for (const { method, path, surface } of RATE_LIMITED_ROUTES) app.on(method, path, rateLimit(deps.rateLimits, surface));
  }

  registerSystemRoutes(app, deps.store, deps.isReady ?? (() => true), deps.publicBaseUrl);
  // Before registerPaymentRoutes: GET /payments/list must not be read as GET /payments/{payment_id}.
  registerPaymentOpsRoutes(app, core);
  registerPaymentRoutes(app, core);
  registerRefundRoutes(app, core);
  registerAccountRoutes(app, core);
  registerCustomerRoutes(app, core);
  registerEventRoutes(app, core, deps.webhooks ?? defaultWebhookDeliveryConfig());
  registerVaultRoutes(app, core, { jsOrigin });
  registerSimulatorRoutes(app, core, { jsOrigin });
  if (deps.demo !== undefined) {
    registerDemoRoutes(app, core, deps.demo, { publicBaseUrl: deps.publicBaseUrl, publicJsUrl: deps.publicJsUrl });
  }

  app.notFound(createNotFoundHandler(app));
  app.onError(createErrorHandler(deps.logger));
  return app;
}
