import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { z } from 'zod';
import { CreateCustomerRequest, CreateEphemeralKeyRequest, CustomerDeleteResponse, CustomerId, CustomerResponse, EphemeralKeyDeleteResponse, EphemeralKeyIdParam, EphemeralKeyResponse, ListCustomersQuery, ListCustomersResponse, UpdateCustomerRequest } from '../../../../../protocol/api/customers';
import { createCustomer } from '../../../core/customers/create-customer';
import { toCustomerResponse } from '../../../core/customers/customer-view';
import { deleteCustomer } from '../../../core/customers/delete-customer';
import { createEphemeralKey, deleteEphemeralKey } from '../../../core/customers/ephemeral-keys';
import { listCustomers } from '../../../core/customers/list-customers';
import { retrieveCustomer } from '../../../core/customers/retrieve-customer';
import { updateCustomer } from '../../../core/customers/update-customer';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const CustomerPath = z.object({ get customer_id() { return CustomerId.unwrap(); } });
const customerJson = { content: { 'application/json': { schema: CustomerResponse } } } as const;

/**
 * POST /customers, GET /customers/list, GET|POST|DELETE /customers/{customer_id}, POST /ephemeral_keys,
 * DELETE /ephemeral_keys/{id}. /customers/list is registered before /customers/{customer_id} (Hono matches in
 * registration order), so no customer named "list" can be retrieved by path.
 */
export function registerCustomerRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/customers',
      tags: ['Customers'],
      summary: 'Create a customer (an existing customer_id returns the stored customer)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateCustomerRequest } } } },
      responses: { 200: { description: 'The customer', ...customerJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toCustomerResponse(await createCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('json'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/customers/list',
      tags: ['Customers'],
      summary: 'List customers, newest first',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: ListCustomersQuery },
      responses: {
        200: { description: 'Customers', content: { 'application/json': { schema: ListCustomersResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json((await listCustomers(coreDeps(c, deps), c.get('auth'), c.req.valid('query'))).map(toCustomerResponse), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/customers/{customer_id}',
      tags: ['Customers'],
      summary: 'Retrieve a customer (secret key, or an ephemeral key of that customer)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'ephemeral'])] as const,
      request: { query: NoQuery, params: CustomerPath },
      responses: { 200: { description: 'The customer', ...customerJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(toCustomerResponse(await retrieveCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('param').customer_id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/customers/{customer_id}',
      tags: ['Customers'],
      summary: 'Update a customer (every field but customer_id)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: {
        query: NoQuery,
        params: CustomerPath,
        body: { required: true, content: { 'application/json': { schema: UpdateCustomerRequest } } },
      },
      responses: { 200: { description: 'The updated customer', ...customerJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const customer = await updateCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('param').customer_id, c.req.valid('json'));
      return c.json(toCustomerResponse(customer), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/customers/{customer_id}',
      tags: ['Customers'],
      summary: 'Delete a customer, its address and its stored payment methods',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: CustomerPath },
      responses: {
        200: { description: 'Deletion result', content: { 'application/json': { schema: CustomerDeleteResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await deleteCustomer(coreDeps(c, deps), c.get('auth'), c.req.valid('param').customer_id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/ephemeral_keys',
      tags: ['Customers'],
      summary: 'Create an ephemeral key scoped to one customer (valid one hour)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateEphemeralKeyRequest } } } },
      responses: {
        200: { description: 'The key; its secret is shown only here', content: { 'application/json': { schema: EphemeralKeyResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await createEphemeralKey(coreDeps(c, deps), c.get('auth'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/ephemeral_keys/{id}',
      tags: ['Customers'],
      summary: 'Delete an ephemeral key',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: z.object({ get id() { return EphemeralKeyIdParam.unwrap(); } }) },
      responses: {
        200: { description: 'The deleted key', content: { 'application/json': { schema: EphemeralKeyDeleteResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await deleteEphemeralKey(coreDeps(c, deps), c.get('auth'), c.req.valid('param').id), 200),
  );
}
