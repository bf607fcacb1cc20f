import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { findWebhookEndpointOrThrow } from './find-webhook-endpoint';

/** DELETE /v1/webhook-endpoints/{id} (fresh step-up, webhooks:manage): the mode falls back to the environment's endpoint, if any. */
export async function deleteWebhookEndpoint(deps: CoreDeps, context: OperatorContext, endpointId: string): Promise<{ endpoint_id: string; deleted: true }> {
  requireFreshStepUp(deps, context, 'webhooks:manage');
  const endpoint = await findWebhookEndpointOrThrow(deps, context.account.accountId, endpointId);
  await deps.store.transaction(async (tx) => {
    if (!(await tx.webhookEndpoints.deleteWebhookEndpoint(context.account.accountId, endpointId))) return;
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `${endpoint.mode} webhook endpoint deleted`,
      body: `${context.operator.email} deleted the ${endpoint.mode} webhook endpoint ${endpoint.url} (${endpointId}).`,
    });
  });
  return { endpoint_id: endpointId, deleted: true };
}
