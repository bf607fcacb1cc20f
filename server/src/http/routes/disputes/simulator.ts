import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { DisputeIdParam, DisputeResponse, SimulateDisputeOutcomeRequest, SimulateDisputeRequest } from '../../../../../protocol/api/disputes';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { decideDisputeOutcome } from '../../../core/disputes/decide-dispute-outcome';
import { toDisputeResponse } from '../../../core/disputes/dispute-view';
import { raiseDispute } from '../../../core/disputes/raise-dispute';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const disputeJson = { content: { 'application/json': { schema: DisputeResponse } } } as const;

/**
 * The test simulator's dispute calls (test mode, secret key; docs/simulator.md): raise a dispute on a succeeded
 * payment as a rail that reports disputes would, and decide it won or lost.
 */
export function registerDisputeSimulatorRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/simulator/disputes',
      tags: ['Test simulator'],
      summary: 'Raise a dispute on a succeeded test payment',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: SimulateDisputeRequest } } } },
      responses: { 200: { description: 'The new dispute, dispute_opened', ...disputeJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toDisputeResponse(await raiseDispute(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/simulator/disputes/{dispute_id}/outcome',
      tags: ['Test simulator'],
      summary: 'Decide a test dispute: won or lost',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: {
        query: NoQuery,
        params: z.object({ get dispute_id() { return DisputeIdParam.unwrap(); } }),
        body: { required: true, content: { 'application/json': { schema: SimulateDisputeOutcomeRequest } } },
      },
      responses: { 200: { description: 'The decided dispute', ...disputeJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toDisputeResponse(await decideDisputeOutcome(coreDeps(c, deps), c.get('auth'), c.req.valid('param').dispute_id, c.req.valid('json'))), 200),
  );
}
