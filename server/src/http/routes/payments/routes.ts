import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { z } from 'zod';
import { ConfirmPaymentRequest, CreatePaymentRequest, PaymentIdParam, PaymentResponse, RetrievePaymentQuery } from '../../../../../protocol/api/payments';
import { confirmPayment } from '../../../core/payments/confirm-payment';
import { createPayment } from '../../../core/payments/create-payment';
import { toPaymentResponse } from '../../../core/payments/payment-view';
import { retrievePaymentResponse } from '../../../core/payments/retrieve-payment';
import { listRefundsOfPayment } from '../../../core/refunds/list-refunds-of-payment';
import { toRefundResponse } from '../../../core/refunds/refund-view';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, rejectRawCardNumbers } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const PaymentPath = z.object({ get payment_id() { return PaymentIdParam.unwrap(); } });
const paymentJson = { content: { 'application/json': { schema: PaymentResponse } } } as const;

/** POST /payments, POST /payments/{payment_id}/confirm, GET /payments/{payment_id}. */
export function registerPaymentRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments',
      tags: ['Payments'],
      summary: 'Create a payment',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody, rejectRawCardNumbers] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreatePaymentRequest } } } },
      responses: { 200: { description: 'The payment (also for a repeated create with the same payment_id and body)', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const { payment } = await createPayment(coreDeps(c, deps), c.get('auth'), c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/confirm',
      tags: ['Payments'],
      summary: 'Confirm a payment',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable']), parseJsonBody, rejectRawCardNumbers] as const,
      request: {
        query: NoQuery,
        params: PaymentPath,
        body: { required: true, content: { 'application/json': { schema: ConfirmPaymentRequest } } },
      },
      responses: { 200: { description: 'The confirmed payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await confirmPayment(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/payments/{payment_id}',
      tags: ['Payments'],
      summary: 'Retrieve a payment (secret key, or publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable'])] as const,
      request: { params: PaymentPath, query: RetrievePaymentQuery },
      responses: { 200: { description: 'The payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const auth = c.get('auth');
      const payment = await retrievePaymentResponse(coreDeps(c, deps), auth, c.req.valid('param').payment_id, c.req.valid('query'));
      const refunds = await listRefundsOfPayment(coreDeps(c, deps), auth, payment.payment_id);
      return c.json(refunds.length === 0 ? payment : Object.assign(payment, { refunds: refunds.map(toRefundResponse) }), 200);
    },
  );
}
