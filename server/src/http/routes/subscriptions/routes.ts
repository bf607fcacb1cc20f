import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NoQuery } from '../../../../../protocol/api/no-query';
import {
  CancelSubscriptionRequest,
  ConfirmSubscriptionRequest,
  CreateAndConfirmSubscriptionRequest,
  CreateSubscriptionRequest,
  ListSubscriptionsQuery,
  PauseSubscriptionRequest,
  PROFILE_ID_HEADER,
  ResumeSubscriptionRequest,
  SubscriptionEstimateQuery,
  SubscriptionEstimateResponse,
  SubscriptionIdParam,
  SubscriptionItemsQuery,
  SubscriptionResponse,
  SubscriptionStatusResponse,
  UpdateSubscriptionRequest,
} from '../../../../../protocol/api/subscriptions';
import { missingClientSecret } from '../../../core/auth/auth';
import type { CoreDeps } from '../../../core/shared/deps';
import { findSubscriptionOrThrow, listSubscriptions, needBillingProcessor } from '../../../core/subscriptions/subscription-operations';
import type { AppEnv } from '../../env';
import { authenticate } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const SubscriptionPath = z.object({ subscription_id: SubscriptionIdParam });
const TAGS = ['Subscriptions'];
const subscriptionJson = { content: { 'application/json': { schema: SubscriptionResponse } } } as const;
const statusJson = { content: { 'application/json': { schema: SubscriptionStatusResponse } } } as const;
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/**
 * Subscriptions (api-conventions §3, header X-Profile-Id on all). Today no billing processor is connected (spec "not
 * live today" 4): core/subscriptions answers every creation with ERR_2001 naming billing_processor_id.
 */
export function registerSubscriptionRoutes(app: OpenAPIHono<AppEnv>, deps: CoreDeps): void {
  const creation = (path: '/subscriptions' | '/subscriptions/create', schema: z.ZodType, summary: string) =>
    app.openapi(
      createRoute({
        method: 'post',
        path,
        tags: TAGS,
        summary,
        security: SECURITY,
        middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
        request: { query: NoQuery, body: jsonBody(schema) },
        responses: { 200: { description: 'The subscription', ...subscriptionJson }, ...ERROR_RESPONSES },
      }),
      async (c) => needBillingProcessor(deps, c.get('auth'), c.req.header(PROFILE_ID_HEADER)),
    );
  creation('/subscriptions', CreateAndConfirmSubscriptionRequest, 'Create and confirm a subscription');
  creation('/subscriptions/create', CreateSubscriptionRequest, 'Create a subscription (confirmed separately)');

  app.openapi(
    createRoute({
      method: 'get',
      path: '/subscriptions/estimate',
      tags: TAGS,
      summary: 'Estimate the first invoice of a plan',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: SubscriptionEstimateQuery },
      responses: { 200: { description: 'The estimate', content: { 'application/json': { schema: SubscriptionEstimateResponse } } }, ...ERROR_RESPONSES },
    }),
    async (c) => needBillingProcessor(deps, c.get('auth'), c.req.header(PROFILE_ID_HEADER)),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/subscriptions/items',
      tags: TAGS,
      summary: "The billing processor's plans or addons",
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable'])] as const,
      request: { query: SubscriptionItemsQuery },
      responses: { 200: { description: 'Items', content: { 'application/json': { schema: z.array(z.record(z.string(), z.unknown())) } } }, ...ERROR_RESPONSES },
    }),
    async (c) => needBillingProcessor(deps, c.get('auth'), c.req.header(PROFILE_ID_HEADER)),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/subscriptions/list',
      tags: TAGS,
      summary: 'List subscriptions',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: ListSubscriptionsQuery },
      responses: { 200: { description: 'Subscriptions', content: { 'application/json': { schema: z.array(SubscriptionResponse) } } }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listSubscriptions(deps, c.get('auth'), c.req.header(PROFILE_ID_HEADER)), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/subscriptions/{subscription_id}',
      tags: TAGS,
      summary: 'Retrieve a subscription',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: NoQuery, params: SubscriptionPath },
      responses: { 200: { description: 'The subscription', ...subscriptionJson }, ...ERROR_RESPONSES },
    }),
    async (c) => findSubscriptionOrThrow(deps, c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('param').subscription_id),
  );

  const change = (
    method: 'post' | 'put',
    path: string,
    schema: z.ZodType,
    summary: string,
    response: typeof subscriptionJson | typeof statusJson,
    kinds: readonly ('secret' | 'publishable')[] = ['secret'],
  ) =>
    app.openapi(
      createRoute({
        method,
        path,
        tags: TAGS,
        summary,
        security: SECURITY,
        middleware: [authenticate(deps, kinds), parseJsonBody] as const,
        request: { query: NoQuery, params: SubscriptionPath, body: jsonBody(schema) },
        responses: { 200: { description: 'The subscription', ...response }, ...ERROR_RESPONSES },
      }),
      async (c) => {
        const auth = c.get('auth');
        const body = (c.req.valid as (target: 'json') => { client_secret?: unknown })('json');
        // A browser confirms with the subscription's client_secret (api-conventions §2), like a payment.
        if (auth.keyKind === 'publishable' && body.client_secret === undefined) throw missingClientSecret();
        return findSubscriptionOrThrow(deps, auth, c.req.header(PROFILE_ID_HEADER), c.req.param('subscription_id') ?? '');
      },
    );
  change('post', '/subscriptions/{subscription_id}/cancel', CancelSubscriptionRequest, 'Cancel a subscription', statusJson);
  change('post', '/subscriptions/{subscription_id}/confirm', ConfirmSubscriptionRequest, 'Confirm a subscription', subscriptionJson, ['secret', 'publishable']);
  change('post', '/subscriptions/{subscription_id}/pause', PauseSubscriptionRequest, 'Pause a subscription', statusJson);
  change('post', '/subscriptions/{subscription_id}/resume', ResumeSubscriptionRequest, 'Resume a subscription', statusJson);
  change('put', '/subscriptions/{subscription_id}/update', UpdateSubscriptionRequest, 'Change the plan of a subscription', subscriptionJson);
}
