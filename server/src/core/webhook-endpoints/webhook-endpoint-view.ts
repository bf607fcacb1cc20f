import type { WebhookEndpoint } from '../../../../protocol/api/events';
import type { WebhookEndpointRecord } from '../../storage/webhook-endpoints/records';

/** An endpoint as the API shows it: never its secrets (they are answered once, at creation and rotation). */
export function toWebhookEndpoint(endpoint: WebhookEndpointRecord, now: Date): WebhookEndpoint {
  const overlap = endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > now;
  return {
    endpoint_id: endpoint.endpointId,
    mode: endpoint.mode,
    url: endpoint.url,
    enabled: endpoint.enabled,
    created: endpoint.createdAt.toISOString(),
    updated: endpoint.updatedAt.toISOString(),
    previous_secret_expires_at: overlap ? endpoint.previousSecretUntil!.toISOString() : null,
  };
}
