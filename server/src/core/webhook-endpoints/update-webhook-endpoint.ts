import type { UpdateWebhookEndpointRequest, WebhookEndpoint } from '../../../../protocol/api/events';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findWebhookEndpointOrThrow } from './find-webhook-endpoint';
import { requireUrlForMode } from './live-endpoint-url';
import { toWebhookEndpoint } from './webhook-endpoint-view';

/**
 * POST /v1/webhook-endpoints/{id} (fresh step-up, webhooks:manage): a new URL, or enabled false (disable: the mode's
 * events are recorded as no_endpoint meanwhile, and a pending event whose next attempt falls due then ends its
 * schedule, endpoint_unavailable) and true again, which resends nothing by itself (docs/webhooks.md). The secret does
 * not change (rotate it on its own).
 */
export async function updateWebhookEndpoint(deps: CoreDeps, context: OperatorContext, endpointId: string, body: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> {
  requireFreshStepUp(deps, context, 'webhooks:manage');
  const endpoint = await findWebhookEndpointOrThrow(deps, context.account.accountId, endpointId);
  if (body.url !== undefined) requireUrlForMode(body.url, endpoint.mode);
  const now = deps.clock.now();
  const updated = { ...endpoint, url: body.url ?? endpoint.url, enabled: body.enabled ?? endpoint.enabled, updatedAt: now };
  await deps.store.transaction(async (tx) => {
    if (!(await tx.webhookEndpoints.updateWebhookEndpointSettings(endpoint.accountId, endpointId, updated))) {
      throw new ApiError('ERR_4092', 'No webhook endpoint with this id exists for this account.');
    }
    const changes = [
      ...(updated.url !== endpoint.url ? [`URL ${endpoint.url} -> ${updated.url}`] : []),
      ...(updated.enabled !== endpoint.enabled ? [updated.enabled ? 'enabled' : 'disabled'] : []),
    ];
    if (changes.length > 0) {
      await queueSecurityEmail(tx, deps, context.account, {
        subject: `${endpoint.mode} webhook endpoint changed`,
        body: `${context.operator.email} changed the ${endpoint.mode} webhook endpoint ${endpoint.endpointId}: ${changes.join('; ')}.`,
      });
    }
  });
  return toWebhookEndpoint(updated, now);
}
