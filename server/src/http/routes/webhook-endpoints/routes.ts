import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  CreateWebhookEndpointRequest,
  DeletedWebhookEndpoint,
  UpdateWebhookEndpointRequest,
  WebhookEndpoint,
  WebhookEndpointIdParam,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookTestResult,
} from '../../../../../protocol/api/events';
import { NoQuery } from '../../../../../protocol/api/no-query';
import type { AuthenticateDeps } from '../../middleware/authenticate';
import { createWebhookEndpoint } from '../../../core/webhook-endpoints/create-webhook-endpoint';
import { deleteWebhookEndpoint } from '../../../core/webhook-endpoints/delete-webhook-endpoint';
import { listWebhookEndpoints } from '../../../core/webhook-endpoints/list-webhook-endpoints';
import { rotateWebhookSecret } from '../../../core/webhook-endpoints/rotate-webhook-secret';
import { sendTestEvent } from '../../../core/webhook-endpoints/send-test-event';
import { updateWebhookEndpoint } from '../../../core/webhook-endpoints/update-webhook-endpoint';
import type { WebhookDeliveryConfig } from '../../../webhooks/delivery';
import { type AppEnv, coreDeps } from '../../env';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { operatorSession } from '../../middleware/operator-session';
import { ERROR_RESPONSES, SESSION_SECURITY, jsonContent } from '../../openapi';


/** Webhook endpoints per mode, managed by operators (docs/webhooks.md "Endpoints"). */
export function registerWebhookEndpointRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps, webhooks: WebhookDeliveryConfig): void {
  const session = operatorSession(deps, { keyManagement: false });
  const change = operatorSession(deps, { keyManagement: true });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/webhook-endpoints',
      tags: ['Webhook endpoints'],
      summary: 'The webhook endpoints registered per mode (any operator session)',
      security: SESSION_SECURITY,
      middleware: [session] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The endpoints', ...jsonContent(WebhookEndpointList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json({ data: await listWebhookEndpoints(coreDeps(c, deps), c.get('operator')) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/webhook-endpoints',
      tags: ['Webhook endpoints'],
      summary: "Register a mode's webhook endpoint (fresh two-factor, webhooks:manage); its secret is shown once",
      security: SESSION_SECURITY,
      middleware: [change, parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateWebhookEndpointRequest } } } },
      responses: { 200: { description: 'The endpoint and its signing secret', ...jsonContent(WebhookEndpointWithSecret) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await createWebhookEndpoint(coreDeps(c, deps), c.get('operator'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/{id}',
      tags: ['Webhook endpoints'],
      summary: 'Change the URL, or disable and enable the endpoint',
      security: SESSION_SECURITY,
      middleware: [change, parseJsonBody] as const,
      request: { query: NoQuery, params: WebhookEndpointIdParam, body: { required: true, content: { 'application/json': { schema: UpdateWebhookEndpointRequest } } } },
      responses: { 200: { description: 'The endpoint', ...jsonContent(WebhookEndpoint) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await updateWebhookEndpoint(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/webhook-endpoints/{id}',
      tags: ['Webhook endpoints'],
      summary: 'Delete the endpoint',
      security: SESSION_SECURITY,
      middleware: [change] as const,
      request: { query: NoQuery, params: WebhookEndpointIdParam },
      responses: { 200: { description: 'Deleted', ...jsonContent(DeletedWebhookEndpoint) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await deleteWebhookEndpoint(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/{id}/rotate-secret',
      tags: ['Webhook endpoints'],
      summary: 'A new signing secret, shown once; the old one signs too for 24 hours',
      security: SESSION_SECURITY,
      middleware: [change, refuseBodyFields] as const,
      request: { query: NoQuery, params: WebhookEndpointIdParam },
      responses: { 200: { description: 'The endpoint and its new secret', ...jsonContent(WebhookEndpointWithSecret) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await rotateWebhookSecret(coreDeps(c, deps), c.get('operator'), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/{id}/test',
      tags: ['Webhook endpoints'],
      summary: 'Send one signed test event to the endpoint now',
      security: SESSION_SECURITY,
      middleware: [session, refuseBodyFields] as const,
      request: { query: NoQuery, params: WebhookEndpointIdParam },
      responses: { 200: { description: 'What the endpoint answered', ...jsonContent(WebhookTestResult) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await sendTestEvent(coreDeps(c, deps), webhooks, c.get('operator'), c.req.valid('param').id), 200),
  );
}
