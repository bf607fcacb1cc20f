import type { EventAttemptList, EventDetail } from '../../../../protocol/api/events';
import type { WebhookEventRecord } from '../../storage/events/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toAttemptResponse, toEventDetail } from './event-view';

/** The event of the key's account and mode, or ERR_4050. */
export async function findEventOrThrow(deps: CoreDeps, auth: AuthContext, eventId: string): Promise<WebhookEventRecord> {
  const event = await deps.store.webhooks.findEvent(auth, eventId);
  if (event === undefined) throw new ApiError('ERR_4050', 'No such event exists for this account and mode.');
  return event;
}

/** GET /events/{event_id} (secret key): the event, its envelope and every attempt. */
export async function retrieveEvent(deps: CoreDeps, auth: AuthContext, eventId: string): Promise<EventDetail> {
  const event = await findEventOrThrow(deps, auth, eventId);
  return toEventDetail(event, await deps.store.webhooks.listAttempts(auth, eventId));
}

/** GET /events/{event_id}/attempts (secret key): the attempts, oldest first. */
export async function listEventAttempts(deps: CoreDeps, auth: AuthContext, eventId: string): Promise<EventAttemptList> {
  await findEventOrThrow(deps, auth, eventId);
  return { data: (await deps.store.webhooks.listAttempts(auth, eventId)).map(toAttemptResponse) };
}
