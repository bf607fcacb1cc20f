import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { z } from 'zod';
import {
  CreateRefundRequest,
  ListRefundsRequest,
  RefundIdParam,
  RefundListResponse,
  RefundResponse,
  RetrieveRefundQuery,
  UpdateRefundRequest,
} from '../../../../../protocol/api/refunds';
import { createRefund } from '../../../core/refunds/create-refund';
import { listRefunds } from '../../../core/refunds/list-refunds';
import { retrieveRefund } from '../../../core/refunds/retrieve-refund';
import { toRefundResponse } from '../../../core/refunds/refund-view';
import { updateRefund } from '../../../core/refunds/update-refund';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const RefundPath = z.object({ get refund_id() { return RefundIdParam.unwrap(); } });
const refundJson = { content: { 'application/json': { schema: RefundResponse } } } as const;
const REFUND_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  404: { ...ERROR_RESPONSES[404], description: 'Not found (ERR_4001 payment, ERR_4007 refund, ERR_2006)' },
  409: { ...ERROR_RESPONSES[409], description: 'Conflict (ERR_4009: refund_id exists with another body)' },
  422: { ...ERROR_RESPONSES[422], description: 'Unprocessable (ERR_4011 live refund, ERR_3010)' },
} as const;

/** POST /refunds, POST /refunds/list, GET /refunds/{refund_id}, POST /refunds/{refund_id} (Hyperswitch v1 paths). */
export function registerRefundRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/refunds',
      tags: ['Refunds'],
      summary: 'Create a refund',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateRefundRequest } } } },
      responses: {
        200: { description: 'The refund (also for a repeated create with the same refund_id and body)', ...refundJson },
        ...REFUND_ERROR_RESPONSES,
      },
    }),
    async (c) => {
      const refund = await createRefund(coreDeps(c, deps), c.get('auth'), c.req.valid('json'));
      return c.json(toRefundResponse(refund), 200);
    },
  );

  // Registered before /refunds/{refund_id} so that "list" is never read as a refund_id.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/refunds/list',
      tags: ['Refunds'],
      summary: 'List refunds (filters in a JSON body)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: ListRefundsRequest } } } },
      responses: {
        200: { description: 'One page of refunds, newest first', content: { 'application/json': { schema: RefundListResponse } } },
        ...REFUND_ERROR_RESPONSES,
      },
    }),
    async (c) => {
      const page = await listRefunds(coreDeps(c, deps), c.get('auth'), c.req.valid('json'));
      return c.json({ count: page.refunds.length, total_count: page.totalCount, data: page.refunds.map(toRefundResponse) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/refunds/{refund_id}',
      tags: ['Refunds'],
      summary: 'Retrieve a refund (force_sync=true asks the rail about a pending or review refund)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: RetrieveRefundQuery, params: RefundPath },
      responses: { 200: { description: 'The refund', ...refundJson }, ...REFUND_ERROR_RESPONSES },
    }),
    async (c) => {
      const refund = await retrieveRefund(coreDeps(c, deps), c.get('auth'), c.req.valid('param').refund_id, c.req.valid('query'));
      return c.json(toRefundResponse(refund), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/refunds/{refund_id}',
      tags: ['Refunds'],
      summary: 'Update a refund (reason, metadata)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: {
        query: NoQuery,
        params: RefundPath,
        body: { required: true, content: { 'application/json': { schema: UpdateRefundRequest } } },
      },
      responses: { 200: { description: 'The updated refund', ...refundJson }, ...REFUND_ERROR_RESPONSES },
    }),
    async (c) => {
      const refund = await updateRefund(coreDeps(c, deps), c.get('auth'), c.req.valid('param').refund_id, c.req.valid('json'));
      return c.json(toRefundResponse(refund), 200);
    },
  );
}
