import type { CreateWebhookEndpointRequest } from '../../../../protocol/api/events';
import { generateWebhookSecret } from '../../webhooks/signing';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { requireUrlForMode } from './live-endpoint-url';
import { toWebhookEndpoint } from './webhook-endpoint-view';

/**
 * POST /v1/webhook-endpoints (fresh step-up, webhooks:manage): where a mode's events go from now on, with a signing
 * secret of its own, answered this once. One endpoint per mode (ERR_4089); it replaces the environment's endpoint
 * (RAIL_WEBHOOK_URL) for that mode. Where events go is as sensitive as a key: every operator is told.
 */
export async function createWebhookEndpoint(deps: CoreDeps, context: OperatorContext, body: CreateWebhookEndpointRequest) {
  requireFreshStepUp(deps, context, 'webhooks:manage');
  requireUrlForMode(body.url, body.mode);
  const now = deps.clock.now();
  const endpoint = {
    endpointId: deps.ids.id('webhookEndpoint'),
    accountId: context.account.accountId,
    mode: body.mode,
    url: body.url,
    secret: generateWebhookSecret(),
    previousSecret: null,
    previousSecretUntil: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    if ((await tx.webhookEndpoints.insertWebhookEndpoint(endpoint)) === 'duplicate') {
      throw new ApiError('ERR_4089', `The account has a ${body.mode} webhook endpoint already; update it or delete it first.`, { fieldName: 'mode' });
    }
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `New ${body.mode} webhook endpoint`,
      body: `${context.operator.email} registered ${body.url} for the account's ${body.mode} events (${endpoint.endpointId}).`,
    });
  });
  return Object.assign(toWebhookEndpoint(endpoint, now), { secret: endpoint.secret });
}
