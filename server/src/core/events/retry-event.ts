import type { EventDetail } from '../../../../protocol/api/events';
import { deliverClaimedEvent, usableEndpoint, type WebhookDeliveryConfig } from '../../webhooks/delivery';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { inEndpointPlace } from '../webhook-endpoints/endpoint-place';
import { toEventDetail } from './event-view';
import { findEventOrThrow } from './retrieve-event';

/**
 * POST /events/{event_id}/retry (secret key): one delivery attempt now, with the same event_id and envelope,
 * whatever the event's status (also after its retries are exhausted). The attempt is recorded (trigger manual);
 * success marks the event delivered; a failure leaves a pending event on its schedule. Answers the event with
 * its attempts. ERR_4051 without an endpoint; ERR_4290 while the endpoint has its whole share of attempts in flight
 * (inEndpointPlace); ERR_4052 while another attempt holds the event.
 */
export async function retryEvent(deps: CoreDeps, config: WebhookDeliveryConfig, auth: AuthContext, eventId: string): Promise<EventDetail> {
  await findEventOrThrow(deps, auth, eventId);
  const endpoint = usableEndpoint(await deps.store.webhooks.findWebhookEndpoint(auth), deps.clock.now());
  if (endpoint === undefined) {
    throw new ApiError('ERR_4051', 'No webhook endpoint is configured for this account (RAIL_WEBHOOK_URL); the event cannot be redelivered.');
  }
  await inEndpointPlace(config, auth, async () => {
    const now = deps.clock.now();
    const leaseId = `manual_${deps.ids.secret(20)}`;
    const claimed = await deps.store.webhooks.claimEvent(auth, eventId, now, new Date(now.getTime() + config.leaseMs), leaseId);
    if (claimed === undefined) {
      throw new ApiError('ERR_4052', 'A delivery attempt of this event is in progress; retry when it has finished.');
    }
    await deliverClaimedEvent(deps, config, claimed, endpoint, 'manual', leaseId);
  });
  const event = await findEventOrThrow(deps, auth, eventId);
  return toEventDetail(event, await deps.store.webhooks.listAttempts(auth, eventId));
}
