import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import { CreateVaultTokenRequest, CreateVaultTokenResponse } from '../../../../../protocol/api/vault';
import { createPspToken } from '../../../core/vault/create-psp-token';
import { ApiError } from '../../../core/shared/errors';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

/** Path prefix the API's open CORS policy leaves to the vault's own. */
export const VAULT_PATH_PREFIX = '/vault/';

/**
 * POST /vault/tokens: the one endpoint that receives card data. Only the hosted frame may call it: CORS answers
 * the js_url origin alone, and a request whose Origin header is not exactly that origin is refused with ERR_1009
 * before the key or the body is looked at (a request without Origin, e.g. from a server, included).
 */
export function registerVaultRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps, options: { jsOrigin: string }): void {
  const { jsOrigin } = options;
  app.use(
    `${VAULT_PATH_PREFIX}*`,
    cors({
      origin: (origin) => (origin === jsOrigin ? origin : null),
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['api-key', 'authorization', 'content-type', 'idempotency-key'],
      exposeHeaders: ['x-request-id'],
      maxAge: 600,
    }),
  );
  const frameOriginOnly = createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.header('origin') !== jsOrigin) {
      throw new ApiError('ERR_1009', 'The vault accepts card data only from the hosted frame (js_url origin).');
    }
    await next();
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/vault/tokens',
      tags: ['Vault'],
      summary: 'Tokenize a card (hosted frame only): publishable key + client_secret; answers a single-use psp_token',
      security: SECURITY,
      middleware: [frameOriginOnly, authenticate(deps, ['publishable'], { idempotency: false }), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateVaultTokenRequest } } } },
      responses: {
        200: { description: 'The psp_token and a display summary of the card', content: { 'application/json': { schema: CreateVaultTokenResponse } } },
        403: { description: 'Origin is not the hosted frame (ERR_1009)', content: ERROR_RESPONSES[400].content },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await createPspToken(coreDeps(c, deps), c.get('auth'), c.req.valid('json')), 200),
  );
}
