import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { SaveSettlementWalletRequest, SettlementWallet } from '../../../../../protocol/api/collect';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { saveSettlementWallet } from '../../../core/collect/save-settlement-wallet';
import type { AuthenticateDeps } from '../../middleware/authenticate';
import { type AppEnv, coreDeps } from '../../env';
import { parseJsonBody } from '../../middleware/json-body';
import { operatorSession } from '../../middleware/operator-session';
import { ERROR_RESPONSES } from '../../openapi';

/** PUT /v1/collect/wallet: the settlement wallet, saved by an operator with a fresh two-factor step-up (docs/collect.md). */
export function registerSettlementWalletRoute(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/collect/wallet',
      tags: ['Collect'],
      summary: 'Save the USDT wallet settlements go to (operator session with fresh two-factor, collect:write)',
      security: [{ SessionAuth: [] }],
      middleware: [operatorSession(deps, { keyManagement: true }), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: SaveSettlementWalletRequest } } } },
      responses: { 200: { description: 'The saved wallet', content: { 'application/json': { schema: SettlementWallet } } }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await saveSettlementWallet(coreDeps(c, deps), c.get('operator'), c.req.valid('json')), 200),
  );
}
