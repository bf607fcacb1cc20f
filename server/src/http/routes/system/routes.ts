import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { HealthResponse } from '../../../../../protocol/api/account';
import { ApiError } from '../../../core/shared/errors';
import type { Store } from '../../../storage/stores';
import type { AppEnv } from '../../env';
import { errorResponse } from '../../error-handler';
import { withTooManyRequests } from '../../openapi';

/** GET /health (200 when the store answers and the server is not shutting down) and GET /openapi.json. */
export function registerSystemRoutes(app: OpenAPIHono<AppEnv>, store: Store, isReady: () => boolean, publicBaseUrl: string): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      tags: ['System'],
      summary: 'Readiness',
      request: { query: NoQuery },
      responses: { 200: { description: 'Ready', content: { 'application/json': { schema: HealthResponse } } } },
    }),
    async (c) => {
      if (!isReady()) return errorResponse(c, new ApiError('ERR_5006', 'The service is shutting down; retry.')) as never;
      try {
        await store.ping();
      } catch {
        return errorResponse(c, new ApiError('ERR_5006', 'The store is unavailable; retry.')) as never;
      }
      return c.json({ status: 'ok' as const }, 200);
    },
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyAuth', { type: 'apiKey', in: 'header', name: 'api-key' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'BearerAuth', { type: 'http', scheme: 'bearer' });
  const documentConfig = {
    openapi: '3.1.0',
    info: {
      title: 'Rail payments API',
      version: '1.0.0',
      description: 'Payment acceptance API (interface version 1.0). Errors: {"error": {type, message, code, field_name?}}.',
    },
    servers: [{ url: publicBaseUrl }],
  };
  // app.doc31's route, with the 429 answer added where a rate limit can give it.
  app.get('/openapi.json', (c) => c.json(withTooManyRequests(app.getOpenAPI31Document(documentConfig))));
}
