import type { DeliveryStatus } from '../../../../protocol/api/events';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { Scope } from '../../kernel/store-types';

/** What an outbox event is about; a family that emits events adds its object here. */
export type EventObjectType = 'payment' | 'refund' | 'dispute' | 'mandate' | 'subscription' | 'collection' | 'settlement';

/** A row of the outbox: an event to deliver to the merchant's webhook endpoint (dispatcher: a later issue). */
export interface OutboxEventRecord extends Scope {
  eventId: string;
  eventType: string;
  objectType: EventObjectType;
  /** The object's own id (a payment's payment_id), whatever its version: the events listing filters on it. */
  objectId: string;
  /**
   * Which change of the object the event announces: the object's version after it for objects whose event types can
   * repeat (payments, subscriptions); 0 for the others, whose events come once per type. The outbox keeps one event
   * per (object, event type, version): the same change recorded twice is written once.
   */
  objectVersion: number;
  /** The full envelope as it will be delivered. */
  payload: JsonObject;
  createdAt: Date;
}

/** An outbox event with its delivery state. */
export interface WebhookEventRecord extends OutboxEventRecord {
  /** The envelope exactly as stored (and sent): every attempt posts these bytes. */
  body: string;
  deliveryStatus: DeliveryStatus;
  /** Every attempt, scheduled and manual. */
  attemptCount: number;
  /** Attempts the dispatcher made on the schedule. */
  scheduledAttemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  failureReason: string | null;
  leaseId: string | null;
  lockedUntil: Date | null;
  updatedAt: Date;
}

export type AttemptTrigger = 'scheduled' | 'manual';

export interface WebhookAttemptRecord extends Scope {
  eventId: string;
  attemptNumber: number;
  trigger: AttemptTrigger;
  url: string;
  attemptedAt: Date;
  /** HTTP status, or null when no answer came. */
  statusCode: number | null;
  /** Network error or timeout, when no answer came. */
  error: string | null;
  durationMs: number;
  /** Truncated answer body. */
  responseBody: string | null;
  succeeded: boolean;
}

/** What an attempt changes on its event; applied only while the caller still holds the lease. */
export interface AttemptOutcome {
  deliveryStatus: DeliveryStatus;
  scheduledAttemptCount: number;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  lastAttemptAt: Date;
  updatedAt: Date;
}

export interface ListEventsFilter {
  objectId?: string | undefined;
  eventType?: string | undefined;
  deliveryStatus?: DeliveryStatus | undefined;
  /** Events strictly older than this one (newest-first keyset). */
  after?: { createdAt: Date; eventId: string } | undefined;
  limit: number;
}

/** A pending event due for delivery, as listed before any claim: which account's and mode's endpoint it goes to. */
export interface DueEvent extends Scope {
  eventId: string;
}
