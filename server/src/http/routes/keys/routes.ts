import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { ApiKeyList, CreateApiKeyRequest, IssuedApiKey, KeyIdParam, RevokedApiKey, SCOPES, ScopesResponse } from '../../../../../protocol/api/keys';
import { createApiKey } from '../../../core/api-keys/create-api-key';
import { listApiKeys } from '../../../core/api-keys/list-api-keys';
import { revokeApiKey } from '../../../core/api-keys/revoke-api-key';
import { rotateApiKey } from '../../../core/api-keys/rotate-api-key';
import type { AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { keyServiceErrors } from '../../middleware/key-service';
import { callerAccountId, operatorSession } from '../../middleware/operator-session';
import { type AppEnv, coreDeps } from '../../env';
import { ERROR_RESPONSES, SECURITY, SESSION_SECURITY, jsonContent } from '../../openapi';


/** The spec's key management under {base_url}/v1: scopes, and API keys listed, created, rotated and revoked (docs/keys.md). */
export function registerKeyRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/scopes',
      tags: ['Keys'],
      summary: 'List the scopes a key or operator may hold (no authentication)',
      request: { query: NoQuery },
      responses: { 200: { description: 'The scopes', ...jsonContent(ScopesResponse) }, ...ERROR_RESPONSES },
    }),
    (c) => c.json({ scopes: [...SCOPES] }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/api-keys',
      tags: ['Keys'],
      summary: "List the account's working API keys (operator session or secret key); never a key's secret",
      security: [...SECURITY, ...SESSION_SECURITY],
      middleware: [keyServiceErrors] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The keys', ...jsonContent(ApiKeyList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listApiKeys(coreDeps(c, deps), await callerAccountId(c, deps)), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/api-keys',
      tags: ['Keys'],
      summary: 'Create an API key (operator session with fresh two-factor, api_keys:manage); the plaintext is shown once',
      security: SESSION_SECURITY,
      middleware: [keyServiceErrors, operatorSession(deps, { keyManagement: true }), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateApiKeyRequest } } } },
      responses: { 200: { description: 'The new key, with its plaintext', ...jsonContent(IssuedApiKey) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await createApiKey(coreDeps(c, deps), c.get('operator'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/api-keys/{id}/rotate',
      tags: ['Keys'],
      summary: 'Rotate an API key: a replacement now, the old key working for 24 more hours',
      security: SESSION_SECURITY,
      middleware: [keyServiceErrors, operatorSession(deps, { keyManagement: true }), refuseBodyFields] as const,
      request: { query: NoQuery, params: KeyIdParam },
      responses: { 200: { description: 'The replacement, with its plaintext', ...jsonContent(IssuedApiKey) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await rotateApiKey(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/api-keys/{id}',
      tags: ['Keys'],
      summary: 'Revoke an API key at once (emergency revoke, no grace window)',
      security: SESSION_SECURITY,
      middleware: [keyServiceErrors, operatorSession(deps, { keyManagement: true })] as const,
      request: { query: NoQuery, params: KeyIdParam },
      responses: { 200: { description: 'Revoked', ...jsonContent(RevokedApiKey) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await revokeApiKey(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );
}
