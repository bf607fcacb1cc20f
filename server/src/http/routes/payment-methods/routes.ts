import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { CustomerId } from '../../../../../protocol/api/customers';
import {
  CreatePaymentMethodRequest,
  CustomerPaymentMethodsQuery,
  CustomerPaymentMethodsResponse,
  DefaultPaymentMethodResponse,
  PaymentMethodDeleteResponse,
  PaymentMethodIdParam,
  PaymentMethodResponse,
  PublishableCustomerPaymentMethodsQuery,
  UpdatePaymentMethodRequest,
} from '../../../../../protocol/api/payment-methods';
import { createPaymentMethod } from '../../../core/payment-methods/create-payment-method';
import { deletePaymentMethod } from '../../../core/payment-methods/delete-payment-method';
import { listPaymentMethodsForPayment, listPaymentMethodsOfCustomer } from '../../../core/payment-methods/list-customer-payment-methods';
import { toPaymentMethodResponse } from '../../../core/payment-methods/payment-method-view';
import { retrievePaymentMethod } from '../../../core/payment-methods/retrieve-payment-method';
import { setDefaultPaymentMethod } from '../../../core/payment-methods/set-default-payment-method';
import { updatePaymentMethod } from '../../../core/payment-methods/update-payment-method';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const MethodPath = z.object({ get method_id() { return PaymentMethodIdParam.unwrap(); } });
const methodJson = { content: { 'application/json': { schema: PaymentMethodResponse } } } as const;
const listJson = { content: { 'application/json': { schema: CustomerPaymentMethodsResponse } } } as const;

/**
 * Stored payment methods (spec "Stored payment methods", paths of api-conventions §3): GET /customers/payment_methods,
 * GET /customers/{customer_id}/payment_methods, POST /customers/{customer_id}/payment_methods/{payment_method_id}/default,
 * POST /payment_methods, GET|DELETE /payment_methods/{method_id}, POST /payment_methods/{method_id}/update.
 */
export function registerPaymentMethodRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/customers/payment_methods',
      tags: ['Stored payment methods'],
      summary: "The saved methods of a payment's customer (publishable key + client_secret)",
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable'])] as const,
      request: { query: PublishableCustomerPaymentMethodsQuery },
      responses: { 200: { description: 'Saved methods', ...listJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listPaymentMethodsForPayment(coreDeps(c, deps), c.get('auth'), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/customers/{customer_id}/payment_methods',
      tags: ['Stored payment methods'],
      summary: "A customer's saved methods, newest first",
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: CustomerPaymentMethodsQuery, params: z.object({ get customer_id() { return CustomerId.unwrap(); } }) },
      responses: { 200: { description: 'Saved methods', ...listJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listPaymentMethodsOfCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('param').customer_id, c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/customers/{customer_id}/payment_methods/{payment_method_id}/default',
      tags: ['Stored payment methods'],
      summary: "Make a saved method the customer's default (ephemeral key of that customer)",
      security: SECURITY,
      middleware: [authenticate(deps, ['ephemeral']), refuseBodyFields] as const,
      request: { query: NoQuery, params: z.object({ get customer_id() { return CustomerId.unwrap(); }, get payment_method_id() { return PaymentMethodIdParam.unwrap(); } }) },
      responses: {
        200: { description: 'The new default', content: { 'application/json': { schema: DefaultPaymentMethodResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => {
      const { customer_id, payment_method_id } = c.req.valid('param');
      return c.json(await setDefaultPaymentMethod(coreDeps(c, deps), c.get('auth'), customer_id, payment_method_id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payment_methods',
      tags: ['Stored payment methods'],
      summary: 'Save a payment method (a token record; never a raw card number)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreatePaymentMethodRequest } } } },
      responses: { 200: { description: 'The stored method', ...methodJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toPaymentMethodResponse(await createPaymentMethod(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/payment_methods/{method_id}',
      tags: ['Stored payment methods'],
      summary: 'Retrieve a stored payment method',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: MethodPath },
      responses: { 200: { description: 'The stored method', ...methodJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toPaymentMethodResponse(await retrievePaymentMethod(coreDeps(c, deps), c.get('auth'), c.req.valid('param').method_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payment_methods/{method_id}/update',
      tags: ['Stored payment methods'],
      summary: 'Update a stored payment method (partial; a new expiry carries a saved card on; the number never changes)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable']), parseJsonBody] as const,
      request: { query: NoQuery, params: MethodPath, body: { required: true, content: { 'application/json': { schema: UpdatePaymentMethodRequest } } } },
      responses: { 200: { description: 'The stored method', ...methodJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const method = await updatePaymentMethod(coreDeps(c, deps), c.get('auth'), c.req.valid('param').method_id, body);
      return c.json(toPaymentMethodResponse(method, body.client_secret ?? null), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/payment_methods/{method_id}',
      tags: ['Stored payment methods'],
      summary: 'Delete a stored payment method',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: MethodPath },
      responses: {
        200: { description: 'Deletion result', content: { 'application/json': { schema: PaymentMethodDeleteResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await deletePaymentMethod(coreDeps(c, deps), c.get('auth'), c.req.valid('param').method_id), 200),
  );
}
