import type { WebhookEndpoint } from '../../../../protocol/api/events';
import type { OperatorContext } from '../sessions/operator-context';
import type { CoreDeps } from '../shared/deps';
import { toWebhookEndpoint } from './webhook-endpoint-view';

/** GET /v1/webhook-endpoints (any operator session): the endpoints registered per mode. */
export async function listWebhookEndpoints(deps: CoreDeps, context: OperatorContext): Promise<WebhookEndpoint[]> {
  const now = deps.clock.now();
  return (await deps.store.webhookEndpoints.listWebhookEndpoints(context.account.accountId)).map((endpoint) => toWebhookEndpoint(endpoint, now));
}
