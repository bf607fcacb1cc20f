/**
 * The two HTTP applications: createApp (the API at base_url) and createJsApp (runtime script and hosted frame at
 * js_url). Both are plain Hono apps, testable with app.request() and no port.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { ApiError } from './core/shared/errors';
import { FAMILIES } from './families/index';
import type { AppDeps } from './http/app-deps';
import { setAnswerHeader } from './http/answer-headers';
import type { AppEnv } from './http/env';
import { createErrorHandler, createNotFoundHandler, errorResponse, validationHook } from './http/error-handler';
import { rejectNulInUrl } from './http/middleware/json-body';
import { requestContext } from './http/middleware/request-context';
import { readHeadersFromNode } from './http/request-headers';
import { RATE_LIMITED_ROUTES, rateLimit } from './http/rate-limit';
import { routeInOrder } from './http/route-order';
import { validateRequestsSynchronously } from './http/sync-validation';
import { VAULT_PATH_PREFIX } from './http/routes/vault/routes';

export { createJsApp, type JsAppDeps } from './http/js-app';
export type { AppDeps } from './http/app-deps';

/** Largest request body the API reads. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: true });
  validateRequestsSynchronously(app);

  app.use('*', readHeadersFromNode);
  app.use('*', requestContext(deps.logger));
  // Browser calls come from the frame (js_url) and merchant pages with publishable keys; no cookies are used.
  // The vault has its own policy (js_url origin only; http/routes/vault/routes.ts).
  const exposeHeaders = ['x-request-id', 'idempotent-replayed'];
  const preflight = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowHeaders: ['api-key', 'authorization', 'content-type', 'idempotency-key'],
    exposeHeaders,
    maxAge: 600,
  });
  // Hono's cors answers preflights; on other requests it sets the same two headers as it would, on the route's
  // answer rather than on a placeholder before the route (http/answer-headers.ts says why).
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith(VAULT_PATH_PREFIX)) return next();
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    await next();
    setAnswerHeader(c, 'Access-Control-Allow-Origin', '*');
    setAnswerHeader(c, 'Access-Control-Expose-Headers', exposeHeaders.join(','));
  });
  const maxBodyBytes = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const globalBodyLimit = bodyLimit({
    maxSize: maxBodyBytes,
    onError: (c) => errorResponse(c, new ApiError('ERR_2009', 'The request body is too large.')),
  });
  // Routes that stream and bound their body themselves (file uploads) are left to their own, documented limit.
  const ownLimit = new Set(FAMILIES.flatMap((family) => family.ownBodyLimit ?? []).map((route) => `${route.method.toUpperCase()} ${route.path}`));
  app.use('*', async (c, next) => {
    if (ownLimit.has(`${c.req.method} ${c.req.path}`)) return next();
    // What Hono's bodyLimit decides from the headers alone, without its first step (asking the request for its body
    // stream, which makes the Node adapter build a Web Request for every call; http/request-body.ts): no body on
    // GET and HEAD, and a declared Content-Length without Transfer-Encoding is checked as declared (Node's parser
    // holds the body to it). Any other body is Hono's to count.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(declared || '0', 10) > maxBodyBytes ? errorResponse(c, new ApiError('ERR_2009', 'The request body is too large.')) : next();
    }
    return globalBodyLimit(c, next);
  });
  app.use('*', rejectNulInUrl);
  if (deps.rateLimits !== undefined) {
    for (const { method, path, surface, clientSecret } of RATE_LIMITED_ROUTES) app.on(method, path, rateLimit(deps.rateLimits, surface, clientSecret));
  }

  routeInOrder(app, (routes) => {
    for (const family of FAMILIES) family.routes(routes, deps);
  });

  app.notFound(createNotFoundHandler(app));
  app.onError(createErrorHandler(deps.logger));
  return app;
}
