import type { WebhookEndpointRecord } from '../../storage/webhook-endpoints/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

export async function findWebhookEndpointOrThrow(deps: CoreDeps, accountId: string, endpointId: string): Promise<WebhookEndpointRecord> {
  const endpoint = await deps.store.webhookEndpoints.findWebhookEndpointById(accountId, endpointId);
  if (endpoint === undefined) throw new ApiError('ERR_4092', 'No webhook endpoint with this id exists for this account.');
  return endpoint;
}
