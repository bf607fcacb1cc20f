import type { Mode } from '../../../../protocol/ids';
import type { DeliveryStatus } from '../../../../protocol/api/events';



export interface WebhookEventsTable {
  event_id: string;
  account_id: string;
  mode: Mode;
  event_type: string;
  object_type: string;
  object_id: string;
  /** Added by migration 0024: with object_id and event_type, what is unique (OutboxEventRecord.objectVersion). */
  object_version: number;
  payload: string;
  /** pending | delivered | failed | no_endpoint: owned by the dispatcher (server/src/webhooks/). */
  delivery_status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /** Added by migration 0005 (webhook delivery). */
  lease_id: string | null;
  locked_until: string | null;
  scheduled_attempt_count: number | null;
  last_attempt_at: string | null;
  failure_reason: string | null;
}

export interface WebhookAttemptsTable {
  account_id: string;
  mode: Mode;
  event_id: string;
  attempt_number: number;
  trigger: string;
  url: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
  succeeded: number;
}

/** The events tables, as storage/schema.ts composes them into the database. */
export interface EventsSchema {
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
}
