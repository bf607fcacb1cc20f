import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ListPaymentMethodsQuery, ListPaymentMethodsResponse } from '../../../../../protocol/api/account';
import type { CoreDeps } from '../../../core/shared/deps';
import { listPaymentMethods } from '../../../core/accounts/list-payment-methods';
import type { AppEnv } from '../../env';
import { authenticate } from '../../middleware/authenticate';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

/** GET /account/payment_methods. */
export function registerAccountRoutes(app: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/account/payment_methods',
      tags: ['Account'],
      summary: 'List the payment methods available (for a payment, with a publishable key and its client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable'])] as const,
      request: { query: ListPaymentMethodsQuery },
      responses: {
        200: { description: 'Payment methods', content: { 'application/json': { schema: ListPaymentMethodsResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await listPaymentMethods(deps, c.get('auth'), c.req.valid('query')), 200),
  );
}
