import type { EventDetail, EventSummary, WebhookAttempt, WebhookEnvelope } from '../../../../protocol/api/events';
import type { WebhookAttemptRecord, WebhookEventRecord } from '../../storage/events/records';

const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** An event as the events API lists it. */
export function toEventSummary(event: WebhookEventRecord): EventSummary {
  return {
    event_id: event.eventId,
    event_type: event.eventType,
    object_type: event.objectType,
    object_id: event.objectId,
    mode: event.mode,
    created: event.createdAt.toISOString(),
    delivery_status: event.deliveryStatus,
    attempt_count: event.attemptCount,
    last_attempt_at: isoOrNull(event.lastAttemptAt),
    next_attempt_at: event.deliveryStatus === 'pending' ? isoOrNull(event.nextAttemptAt) : null,
    failure_reason: event.failureReason,
  };
}

export function toAttemptResponse(attempt: WebhookAttemptRecord): WebhookAttempt {
  return {
    attempt_number: attempt.attemptNumber,
    trigger: attempt.trigger,
    attempted_at: attempt.attemptedAt.toISOString(),
    url: attempt.url,
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    response_body: attempt.responseBody,
    succeeded: attempt.succeeded,
  };
}

/** An event with the envelope it delivers (snapshotted when the event was written) and its attempts. */
export function toEventDetail(event: WebhookEventRecord, attempts: readonly WebhookAttemptRecord[]): EventDetail {
  return Object.assign(toEventSummary(event), { payload: event.payload as WebhookEnvelope, attempts: attempts.map(toAttemptResponse) });
}
