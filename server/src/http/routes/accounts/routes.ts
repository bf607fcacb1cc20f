import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ListPaymentMethodsAnswer, ListPaymentMethodsQuery } from '../../../../../protocol/api/account';
import { listPaymentMethodsWithPayment } from '../../../core/payments/list-payment-methods-with-payment';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

/** GET /account/payment_methods. */
export function registerAccountRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
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
        200: {
          description: 'Payment methods (and, with expand_payment=true, the payment of the client_secret)',
          content: { 'application/json': { schema: ListPaymentMethodsAnswer } },
        },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await listPaymentMethodsWithPayment(coreDeps(c, deps), c.get('auth'), c.req.valid('query')), 200),
  );
}
