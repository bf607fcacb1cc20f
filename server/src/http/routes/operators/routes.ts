import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import {
  AcceptInvitationRequest,
  InviteOperatorRequest,
  OperatorEntry,
  OperatorIdParam,
  OperatorInvitation,
  OperatorList,
  RemovedOperator,
  ResetIdParam,
  TwoFactorReset,
} from '../../../../../protocol/api/keys';
import { acceptInvitation } from '../../../core/operators/accept-invitation';
import { approveTwoFactorReset } from '../../../core/operators/approve-two-factor-reset';
import { inviteOperator } from '../../../core/operators/invite-operator';
import { listOperators } from '../../../core/operators/list-operators';
import { removeOperator } from '../../../core/operators/remove-operator';
import { requestTwoFactorReset } from '../../../core/operators/request-two-factor-reset';
import type { AuthenticateDeps } from '../../middleware/authenticate';
import { type AppEnv, coreDeps } from '../../env';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { operatorSession } from '../../middleware/operator-session';
import { ERROR_RESPONSES, SESSION_SECURITY, jsonContent } from '../../openapi';


/** Operators managed by operators (docs/keys.md "Operators"): list, invite, accept, remove, two-person two-factor reset. */
export function registerOperatorRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps & { publicBaseUrl: string }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/operators',
      tags: ['Operators'],
      summary: "The account's operators (any operator session)",
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: false })] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The operators', ...jsonContent(OperatorList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json({ data: await listOperators(coreDeps(c, deps), c.get('operator')) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/operators/invitations',
      tags: ['Operators'],
      summary: 'Invite an operator: a one-time link (fresh two-factor, operators:manage)',
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: true }), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: InviteOperatorRequest } } } },
      responses: { 200: { description: 'The invitation, with its one-time token', ...jsonContent(OperatorInvitation) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await inviteOperator(coreDeps(c, deps), c.get('operator'), c.req.valid('json'), deps.publicBaseUrl), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/operators/invitations/accept',
      tags: ['Operators'],
      summary: "Accept an invitation with its token and a password (no key); two-factor is enrolled at the first sign-in",
      middleware: [parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: AcceptInvitationRequest } } } },
      responses: { 200: { description: 'The new operator', ...jsonContent(OperatorEntry) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await acceptInvitation(coreDeps(c, deps), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/operators/{id}',
      tags: ['Operators'],
      summary: 'Remove an operator (fresh two-factor, operators:manage); never the last one',
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: true })] as const,
      request: { query: NoQuery, params: OperatorIdParam },
      responses: { 200: { description: 'Removed', ...jsonContent(RemovedOperator) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await removeOperator(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/operators/{id}/two-factor-resets',
      tags: ['Operators'],
      summary: "Ask to reset an operator's two-factor; a second operator approves it",
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: true }), refuseBodyFields] as const,
      request: { query: NoQuery, params: OperatorIdParam },
      responses: { 200: { description: 'The pending reset', ...jsonContent(TwoFactorReset) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await requestTwoFactorReset(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/operators/two-factor-resets/{reset_id}/approve',
      tags: ['Operators'],
      summary: 'Approve a two-factor reset asked for by another operator',
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: true }), refuseBodyFields] as const,
      request: { query: NoQuery, params: ResetIdParam },
      responses: { 200: { description: 'The approved reset', ...jsonContent(TwoFactorReset) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await approveTwoFactorReset(coreDeps(c, deps), c.get('operator'), c.req.valid('param').reset_id), 200),
  );
}
