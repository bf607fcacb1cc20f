import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { lazySchema } from '../../../../../protocol/lazy-schema';
import { CustomerId } from '../../../../../protocol/api/customers';
import { ListMandatesQuery, MandateIdParam, MandateResponse, MandateRevokedResponse } from '../../../../../protocol/api/mandates';
import { listMandates, listMandatesOfCustomer } from '../../../core/mandates/list-mandates';
import { toMandateResponse } from '../../../core/mandates/mandate-view';
import { retrieveMandate } from '../../../core/mandates/retrieve-mandate';
import { revokeMandate } from '../../../core/mandates/revoke-mandate';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const MandatePath = z.object({ get mandate_id() { return MandateIdParam.unwrap(); } });
const listJson = { content: { 'application/json': { schema: lazySchema(() => z.array(MandateResponse)) } } } as const;

/** Mandates (api-conventions §3): GET /mandates/list, GET /customers/{customer_id}/mandates, POST /mandates/revoke/{id}, GET /mandates/{id}. */
export function registerMandateRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/mandates/list',
      tags: ['Mandates'],
      summary: 'List mandates, newest first',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: ListMandatesQuery },
      responses: { 200: { description: 'Mandates', ...listJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json((await listMandates(coreDeps(c, deps), c.get('auth'), c.req.valid('query'))).map(toMandateResponse), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/customers/{customer_id}/mandates',
      tags: ['Mandates'],
      summary: "A customer's mandates",
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: z.object({ get customer_id() { return CustomerId.unwrap(); } }) },
      responses: { 200: { description: 'Mandates', ...listJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json((await listMandatesOfCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('param').customer_id)).map(toMandateResponse), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/mandates/revoke/{mandate_id}',
      tags: ['Mandates'],
      summary: 'Revoke a mandate (later charges under it are refused)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), refuseBodyFields] as const,
      request: { query: NoQuery, params: MandatePath },
      responses: {
        200: { description: 'The revoked mandate', content: { 'application/json': { schema: MandateRevokedResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await revokeMandate(coreDeps(c, deps), c.get('auth'), c.req.valid('param').mandate_id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/mandates/{mandate_id}',
      tags: ['Mandates'],
      summary: 'Retrieve a mandate',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: MandatePath },
      responses: { 200: { description: 'The mandate', content: { 'application/json': { schema: MandateResponse } } }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toMandateResponse(await retrieveMandate(coreDeps(c, deps), c.get('auth'), c.req.valid('param').mandate_id)), 200),
  );
}
