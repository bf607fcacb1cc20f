import { EVENT_LIMITS, type EventList, type ListEventsQuery } from '../../../../protocol/api/events';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toEventSummary } from './event-view';

/**
 * GET /events (secret key): the key's account and mode, newest first, filtered by object_id, event_type and
 * delivery_status. `cursor` is the next_cursor of the previous page (the last event_id it showed).
 */
export async function listEvents(deps: CoreDeps, auth: AuthContext, query: ListEventsQuery): Promise<EventList> {
  let after: { createdAt: Date; eventId: string } | undefined;
  if (query.cursor !== undefined) {
    const from = await deps.store.webhooks.findEvent(auth, query.cursor);
    if (from === undefined) throw new ApiError('ERR_4053', 'cursor names no event of this account and mode.', { fieldName: 'cursor' });
    after = { createdAt: from.createdAt, eventId: from.eventId };
  }
  const limit = query.limit ?? EVENT_LIMITS.pageDefault;
  const rows = await deps.store.webhooks.listEvents(auth, {
    objectId: query.object_id,
    eventType: query.event_type,
    deliveryStatus: query.delivery_status,
    after,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data: page.map(toEventSummary), has_more: hasMore, next_cursor: hasMore ? (page.at(-1)?.eventId ?? null) : null };
}
