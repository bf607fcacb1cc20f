/**
 * REST shapes of the events API (GET /events, GET /events/{event_id}, GET /events/{event_id}/attempts,
 * POST /events/{event_id}/retry) and the webhook envelope as delivered (api-conventions §7). The paths are Rail's
 * (Hyperswitch has similar ones under /events/{merchant_id}); see docs/open-points.md and docs/webhooks.md.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { DISPUTE_STATUSES } from './disputes';

/** Limits of the events API (Rail's own; docs/open-points.md). */
export const EVENT_LIMITS = {
  pageDefault: 10,
  pageMax: 100,
  idMax: 64,
} as const;

/** Delivery state of an event. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'no_endpoint'] as const;
export const DeliveryStatus = lazySchema(() => z.enum(DELIVERY_STATUSES));
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** The event types Rail may emit: Hyperswitch v1 EventType values (docs/reference.md, Hyperswitch §4) and the Collect API's. */
export const EVENT_TYPES = [
  'payment_succeeded',
  'payment_failed',
  'payment_processing',
  'payment_cancelled',
  'payment_cancelled_post_capture',
  'payment_authorized',
  'payment_partially_authorized',
  'payment_captured',
  'payment_expired',
  'action_required',
  'refund_succeeded',
  'refund_failed',
  // Not a Hyperswitch type: a refund before an operator, held for review by its rail or parked by recovery (docs/reliability.md).
  'refund_review',
  // A dispute's event is named after the status it reaches.
  ...DISPUTE_STATUSES,
  'mandate_active',
  'mandate_revoked',
  // Subscriptions: Hyperswitch's invoice_paid for a paid renewal; the status changes are ours (docs/open-points.md).
  'invoice_paid',
  // Stripe's invoice.payment_failed: a renewal refused after a pause or cancel, which leaves the status as it is.
  'invoice_payment_failed',
  'subscription_created',
  'subscription_active',
  'subscription_paused',
  'subscription_cancelled',
  'subscription_unpaid',
  'subscription_updated',
  // The Collect API's events, named exactly as the spec names them.
  'collection.received',
  'collection.credited',
  'settlement.processing',
  'settlement.completed',
  'settlement.failed',
] as const;

const EventIdString = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(EVENT_LIMITS.idMax)
    .regex(/^[A-Za-z0-9_-]+$/, 'event_id may contain only A-Z, a-z, 0-9, _ and -'));

export const EventIdParam = EventIdString;

/** GET /events query. */
export const ListEventsQuery = z.strictObject({
  get object_id() { return z.string().min(1).max(EVENT_LIMITS.idMax).optional(); },
  get event_type() { return z.string().min(1).max(64).optional(); },
  get delivery_status() { return DeliveryStatus.unwrap().optional(); },
  get limit() {
    return z
      .string()
      .regex(/^\d{1,3}$/, 'limit must be an integer')
      .transform(Number)
      .pipe(z.int().min(1).max(EVENT_LIMITS.pageMax))
      .optional();
  },
  get cursor() { return EventIdString.unwrap().optional(); },
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

/** The envelope POSTed to the merchant's endpoint (api-conventions §7). `object` is the resource as the API returns it. */
export const WebhookEnvelope = lazySchema(() =>
  z
    .object({
      event_id: z.string(),
      event_type: z.string(),
      created: z.string(),
      account_id: z.string(),
      mode: z.enum(['test', 'live']),
      content: z.object({ type: z.string(), object: z.record(z.string(), z.unknown()) }),
    })
    .meta({ id: 'WebhookEnvelope' }));
export type WebhookEnvelope = z.infer<typeof WebhookEnvelope>;

/** One delivery attempt, as recorded. */
export const WebhookAttempt = lazySchema(() =>
  z
    .object({
      attempt_number: z.int(),
      /** scheduled: by the dispatcher; manual: POST /events/{event_id}/retry. */
      trigger: z.enum(['scheduled', 'manual']),
      attempted_at: z.string(),
      url: z.string(),
      /** HTTP status of the answer; null when no answer came (network error, timeout). */
      status_code: z.int().nullable(),
      /** Why the attempt failed without an HTTP answer (for example "timeout" or "ECONNREFUSED"). */
      error: z.string().nullable(),
      duration_ms: z.int(),
      /** The first characters of the answer's body. */
      response_body: z.string().nullable(),
      succeeded: z.boolean(),
    })
    .meta({ id: 'WebhookAttempt' }));
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/** An event in lists. */
export const EventSummary = lazySchema(() =>
  z
    .object({
      event_id: z.string(),
      event_type: z.string(),
      object_type: z.string(),
      object_id: z.string(),
      mode: z.enum(['test', 'live']),
      created: z.string(),
      delivery_status: DeliveryStatus.unwrap(),
      /** Every attempt, scheduled and manual. */
      attempt_count: z.int(),
      last_attempt_at: z.string().nullable(),
      /** When the dispatcher tries next (pending only). */
      next_attempt_at: z.string().nullable(),
      /** Set when delivery_status is failed: retries_exhausted. */
      failure_reason: z.string().nullable(),
    })
    .meta({ id: 'EventSummary' }));
export type EventSummary = z.infer<typeof EventSummary>;

/** GET /events/{event_id}: the event, the envelope as delivered, and its attempts (oldest first). */
export const EventDetail = lazySchema(() =>
  EventSummary.unwrap().extend({
    payload: WebhookEnvelope.unwrap(),
    attempts: z.array(WebhookAttempt.unwrap()),
  }).meta({ id: 'Event' }));
export type EventDetail = z.infer<typeof EventDetail>;

export const EventList = lazySchema(() =>
  z
    .object({
      data: z.array(EventSummary.unwrap()),
      has_more: z.boolean(),
      /** Pass as `cursor` to read the next page; null on the last page. */
      next_cursor: z.string().nullable(),
    })
    .meta({ id: 'EventList' }));
export type EventList = z.infer<typeof EventList>;

export const EventAttemptList = lazySchema(() =>
  z.object({ data: z.array(WebhookAttempt.unwrap()) }).meta({ id: 'WebhookAttemptList' }));
export type EventAttemptList = z.infer<typeof EventAttemptList>;

/** Webhook endpoints operators register, one per mode (docs/webhooks.md "Endpoints"). */
export const WebhookEndpointIdParam = z.object({ get id() { return z.string().max(64); } });

const EndpointUrl = lazySchema(() =>
  z
    .string()
    .trim()
    .max(2048)
    .url()
    .refine((url) => /^https?:\/\//i.test(url), { message: 'url must be http(s)' }));

export const CreateWebhookEndpointRequest = lazySchema(() =>
  z
    .strictObject({ mode: z.enum(['test', 'live']).default('test'), url: EndpointUrl.unwrap() })
    .meta({ id: 'CreateWebhookEndpointRequest' }));
export type CreateWebhookEndpointRequest = z.infer<typeof CreateWebhookEndpointRequest>;

export const UpdateWebhookEndpointRequest = lazySchema(() =>
  z
    .strictObject({ url: EndpointUrl.unwrap().optional(), enabled: z.boolean().optional() })
    .meta({ id: 'UpdateWebhookEndpointRequest' }));
export type UpdateWebhookEndpointRequest = z.infer<typeof UpdateWebhookEndpointRequest>;

export const WebhookEndpoint = lazySchema(() =>
  z
    .object({
      endpoint_id: z.string(),
      mode: z.enum(['test', 'live']),
      url: z.string(),
      enabled: z.boolean(),
      created: z.string(),
      updated: z.string(),
      /** While a rotated secret still signs beside the new one. */
      previous_secret_expires_at: z.string().nullable(),
    })
    .meta({ id: 'WebhookEndpoint' }));
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** A new endpoint or a rotated secret: the signing secret, in this answer only. */
export const WebhookEndpointWithSecret = lazySchema(() =>
  WebhookEndpoint.unwrap().extend({ secret: z.string() }).meta({ id: 'WebhookEndpointWithSecret' }));

export const DeletedWebhookEndpoint = lazySchema(() =>
  z.object({ endpoint_id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWebhookEndpoint' }));

export const WebhookEndpointList = lazySchema(() =>
  z.object({ data: z.array(WebhookEndpoint.unwrap()) }).meta({ id: 'WebhookEndpointList' }));

export const WebhookTestResult = lazySchema(() =>
  z
    .object({ delivered: z.boolean(), status_code: z.number().int().nullable(), error: z.string().nullable(), duration_ms: z.number().int() })
    .meta({ id: 'WebhookTestResult' }));
