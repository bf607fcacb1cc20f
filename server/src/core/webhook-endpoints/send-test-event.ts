import { randomUUID } from 'node:crypto';
import { deliveryHeaders, usableEndpoint, type WebhookDeliveryConfig } from '../../webhooks/delivery';
import { describeSendError } from '../../webhooks/sender';
import type { OperatorContext } from '../sessions/operator-context';
import type { CoreDeps } from '../shared/deps';
import { inEndpointPlace } from './endpoint-place';
import { findWebhookEndpointOrThrow } from './find-webhook-endpoint';

/**
 * POST /v1/webhook-endpoints/{id}/test (any operator session): one signed delivery of a `webhook_endpoint.test`
 * event, now, signed exactly like real ones (both secrets during a rotation's overlap), even while the endpoint is
 * disabled, so a receiver can be checked before it is switched on. Not stored as an event, never retried. It takes a
 * place of the endpoint's share of attempts in flight (ERR_4290 while all are taken: inEndpointPlace).
 */
export async function sendTestEvent(deps: CoreDeps, config: WebhookDeliveryConfig, context: OperatorContext, endpointId: string) {
  const endpoint = await findWebhookEndpointOrThrow(deps, context.account.accountId, endpointId);
  const now = deps.clock.now();
  const signing = usableEndpoint({ ...endpoint, url: endpoint.url }, now)!;
  const eventId = `evt_test_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({
    event_id: eventId,
    event_type: 'webhook_endpoint.test',
    created: now.toISOString(),
    account_id: endpoint.accountId,
    mode: endpoint.mode,
    content: { type: 'webhook_endpoint', object: { endpoint_id: endpoint.endpointId, url: endpoint.url } },
  });
  const headers = deliveryHeaders(signing.secrets, eventId, Math.floor(now.getTime() / 1000), body);
  return inEndpointPlace(config, endpoint, async () => {
    const started = Date.now();
    try {
      const response = await config.sender.send({ url: endpoint.url, headers, body, timeoutMs: config.timeoutMs });
      return { delivered: response.status >= 200 && response.status < 300, status_code: response.status, error: null, duration_ms: Date.now() - started };
    } catch (cause) {
      return { delivered: false, status_code: null, error: describeSendError(cause), duration_ms: Date.now() - started };
    }
  });
}
