import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { lazySchema } from '../../../../../protocol/lazy-schema';
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
import { cancelSubscription } from '../../../core/subscriptions/cancel-subscription';
import { confirmSubscription } from '../../../core/subscriptions/confirm-subscription';
import { createAndConfirmSubscription } from '../../../core/subscriptions/create-and-confirm-subscription';
import { createSubscription } from '../../../core/subscriptions/create-subscription';
import { estimateSubscription } from '../../../core/subscriptions/estimate-subscription';
import { listSubscriptionItems } from '../../../core/subscriptions/list-subscription-items';
import { listSubscriptions } from '../../../core/subscriptions/list-subscriptions';
import { pauseSubscription } from '../../../core/subscriptions/pause-subscription';
import { renewDueSubscriptions } from '../../../core/subscriptions/renew-subscriptions';
import { respondWithSubscription, retrieveSubscription } from '../../../core/subscriptions/retrieve-subscription';
import { resumeSubscription } from '../../../core/subscriptions/resume-subscription';
import { updateSubscription } from '../../../core/subscriptions/update-subscription';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { ApiError } from '../../../core/shared/errors';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const SubscriptionPath = z.object({ get subscription_id() { return SubscriptionIdParam.unwrap(); } });
const TAGS = ['Subscriptions'];
const subscriptionJson = { content: { 'application/json': { schema: SubscriptionResponse } } } as const;
const statusJson = { content: { 'application/json': { schema: SubscriptionStatusResponse } } } as const;
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/**
 * Subscriptions (api-conventions §3, header X-Profile-Id on all). Today no billing processor is connected (spec "not
 * live today" 4): core/subscriptions answers every creation with ERR_2001 naming billing_processor_id.
 */
export function registerSubscriptionRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/subscriptions',
      tags: TAGS,
      summary: 'Create and confirm a subscription (pays the first invoice)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: jsonBody(CreateAndConfirmSubscriptionRequest) },
      responses: { 200: { description: 'The subscription', ...subscriptionJson }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await createAndConfirmSubscription(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/subscriptions/create',
      tags: TAGS,
      summary: 'Create a subscription (confirmed separately)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, body: jsonBody(CreateSubscriptionRequest) },
      responses: { 200: { description: 'The subscription', ...subscriptionJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const created = await createSubscription(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('json'));
      return c.json(await respondWithSubscription(coreDeps(c, deps), created), 200);
    },
  );

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
    async (c) => c.json(await estimateSubscription(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('query')), 200),
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
      responses: { 200: { description: 'Items', content: { 'application/json': { schema: lazySchema(() => z.array(z.record(z.string(), z.unknown()))) } } }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listSubscriptionItems(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('query')), 200),
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
      responses: { 200: { description: 'Subscriptions', content: { 'application/json': { schema: lazySchema(() => z.array(SubscriptionResponse)) } } }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await listSubscriptions(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('query')), 200),
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
    async (c) => c.json(await retrieveSubscription(coreDeps(c, deps), c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.valid('param').subscription_id), 200),
  );

  const changeRoute = (method: 'post' | 'put', path: string, schema: z.ZodType, summary: string, response: typeof subscriptionJson | typeof statusJson, kinds: readonly ('secret' | 'publishable')[] = ['secret']) =>
    createRoute({
      method,
      path,
      tags: TAGS,
      summary,
      security: SECURITY,
      middleware: [authenticate(deps, kinds), parseJsonBody] as const,
      request: { query: NoQuery, params: SubscriptionPath, body: jsonBody(schema) },
      responses: { 200: { description: 'The subscription', ...response }, ...ERROR_RESPONSES },
    });
  const target = (c: { get(key: 'auth'): AppEnv['Variables']['auth']; req: { header(name: string): string | undefined; param(name: string): string | undefined } }) =>
    [c.get('auth'), c.req.header(PROFILE_ID_HEADER), c.req.param('subscription_id') ?? ''] as const;

  app.openapi(changeRoute('post', '/subscriptions/{subscription_id}/cancel', CancelSubscriptionRequest, 'Cancel a subscription', statusJson), async (c) =>
    c.json(await cancelSubscription(coreDeps(c, deps), ...target(c), c.req.valid('json') as CancelSubscriptionRequest), 200),
  );
  app.openapi(
    changeRoute('post', '/subscriptions/{subscription_id}/confirm', ConfirmSubscriptionRequest, 'Confirm a subscription (pays the first invoice)', subscriptionJson, ['secret', 'publishable']),
    async (c) => c.json(await confirmSubscription(coreDeps(c, deps), ...target(c), c.req.valid('json') as ConfirmSubscriptionRequest), 200),
  );
  app.openapi(changeRoute('post', '/subscriptions/{subscription_id}/pause', PauseSubscriptionRequest, 'Pause a subscription', statusJson), async (c) =>
    c.json(await pauseSubscription(coreDeps(c, deps), ...target(c), c.req.valid('json') as PauseSubscriptionRequest), 200),
  );
  app.openapi(changeRoute('post', '/subscriptions/{subscription_id}/resume', ResumeSubscriptionRequest, 'Resume a subscription', statusJson), async (c) =>
    c.json(await resumeSubscription(coreDeps(c, deps), ...target(c), c.req.valid('json') as ResumeSubscriptionRequest), 200),
  );
  app.openapi(changeRoute('put', '/subscriptions/{subscription_id}/update', UpdateSubscriptionRequest, 'Change the plan of a subscription', subscriptionJson), async (c) =>
    c.json(await updateSubscription(coreDeps(c, deps), ...target(c), c.req.valid('json') as UpdateSubscriptionRequest), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/simulator/subscriptions/renew',
      tags: TAGS,
      summary: "Test mode: renew the account's due subscriptions now (the simulated billing processor's clock tick)",
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery },
      responses: {
        200: { description: 'What the tick did', content: { 'application/json': { schema: lazySchema(() => z.object({ renewed: z.int(), failed: z.int(), paused: z.int(), cancelled: z.int() })) } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => {
      const auth = c.get('auth');
      if (auth.mode !== 'test' || auth.account.settings.billingProcessor !== 'simulator') {
        throw new ApiError('ERR_2001', 'billing_processor_id is required: no simulated billing processor is connected in this mode.', { fieldName: 'billing_processor_id' });
      }
      // Not the Idempotency-Key's derived ids: which subscriptions a tick renews depends on the clock, so a re-run of a
      // released key would hand the first run's n-th payment id to another subscription, find the first one's payment
      // and take it for this one's. Each renewal's claim (renewal_payment_id) is what makes a tick safe to run again.
      return c.json(await renewDueSubscriptions(deps, auth), 200);
    },
  );
}
