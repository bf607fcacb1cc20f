import type { JsonObject } from '../../../../protocol/api/payments';
import { isoString } from '../../kernel/clock';
import type { Scope } from '../../kernel/store-types';
import type { EventObjectType, OutboxEventRecord } from '../../storage/events/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from './deps';

export interface ObjectEvent {
  /** The account and mode the object belongs to; the event carries both. */
  scope: Scope;
  eventType: string;
  objectType: EventObjectType;
  objectId: string;
  /**
   * Objects whose event types can repeat (a payment needing action twice, a subscription paused again): the version
   * the change left the object at, so each change is one event and the same change recorded twice is one. Omitted:
   * one event per (object, event type).
   */
  objectVersion?: number;
  /** `content.type` of the envelope (Hyperswitch names: payment_details, refund_details, ...). */
  contentType: string;
  /** The full resource as the API returns it (a protocol response type). */
  object: object;
}

/**
 * Writes one webhook event to the outbox in the caller's transaction, so the state change and its event commit
 * together (api-conventions §7: `{event_id, event_type, created, account_id, mode, content: {type, object}}`).
 */
export async function recordObjectEvent(deps: Pick<CoreDeps, 'ids'>, tx: Stores, event: ObjectEvent, now: Date): Promise<void> {
  await tx.outbox.insertEvent(outboxEventOf(deps, event, now));
}

/** The outbox record of an event: its envelope, under a new event id. */
export function outboxEventOf(deps: Pick<CoreDeps, 'ids'>, event: ObjectEvent, now: Date): OutboxEventRecord {
  const eventId = deps.ids.id('event');
  const { accountId, mode } = event.scope;
  return {
    eventId,
    accountId,
    mode,
    eventType: event.eventType,
    objectType: event.objectType,
    objectId: event.objectId,
    objectVersion: event.objectVersion ?? 0,
    createdAt: now,
    payload: {
      event_id: eventId,
      event_type: event.eventType,
      created: isoString(now),
      account_id: accountId,
      mode,
      content: { type: event.contentType, object: event.object as JsonObject },
    },
  };
}
