import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { z } from 'zod';
import { EventAttemptList, EventDetail, EventIdParam, EventList, ListEventsQuery } from '../../../../../protocol/api/events';
import { listEvents } from '../../../core/events/list-events';
import { listEventAttempts, retrieveEvent } from '../../../core/events/retrieve-event';
import { retryEvent } from '../../../core/events/retry-event';
import type { WebhookDeliveryConfig } from '../../../webhooks/delivery';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { refuseBodyFields } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY, jsonContent } from '../../openapi';

const EventPath = z.object({ get event_id() { return EventIdParam.unwrap(); } });

/** GET /events, GET /events/{event_id}, GET /events/{event_id}/attempts, POST /events/{event_id}/retry (secret key). */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps, webhooks: WebhookDeliveryConfig): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/events',
      tags: ['Events'],
      summary: 'List webhook events, newest first',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: ListEventsQuery },
      responses: { 200: { description: 'A page of events', ...jsonContent(EventList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listEvents(coreDeps(c, deps), c.get('auth'), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/events/{event_id}',
      tags: ['Events'],
      summary: 'Retrieve a webhook event with its envelope and delivery attempts',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: EventPath },
      responses: { 200: { description: 'The event', ...jsonContent(EventDetail) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await retrieveEvent(coreDeps(c, deps), c.get('auth'), c.req.valid('param').event_id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/events/{event_id}/attempts',
      tags: ['Events'],
      summary: 'List the delivery attempts of a webhook event, oldest first',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: EventPath },
      responses: { 200: { description: 'The attempts', ...jsonContent(EventAttemptList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listEventAttempts(coreDeps(c, deps), c.get('auth'), c.req.valid('param').event_id), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/events/{event_id}/retry',
      tags: ['Events'],
      summary: 'Redeliver a webhook event now (same event_id; also after its retries are exhausted)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), refuseBodyFields] as const,
      request: { query: NoQuery, params: EventPath },
      responses: { 200: { description: 'The event with the new attempt last', ...jsonContent(EventDetail) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await retryEvent(coreDeps(c, deps), webhooks, c.get('auth'), c.req.valid('param').event_id), 200),
  );
}
