/**
 * One delivery attempt of a claimed event, shared by the dispatcher (scheduled attempts) and
 * POST /events/{event_id}/retry (manual attempts): sign, POST, record the attempt and the event's next state in
 * one transaction, release the lease. Every attempt posts the stored envelope bytes with the same webhook-id (the
 * event_id); only webhook-timestamp and the signatures change (Standard Webhooks signs the attempt's time).
 */
import type { Clock } from '../kernel/clock';
import type { Store } from '../storage/stores';
import type { AttemptOutcome, AttemptTrigger, WebhookAttemptRecord, WebhookEventRecord } from '../storage/events/records';
import type { DeliveryEndpoint } from '../storage/events/store';
import { EndpointAttemptShares } from './endpoint-shares';
import { describeSendError, fetchWebhookSender, type WebhookSender } from './sender';
import { webhookHeaders } from './signing';

/** Hyperswitch's schedule (docs/reference.md, Hyperswitch §4): 16 retries over about 24 hours after the first attempt. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  60, 300, 300, 600, 600, 600, 600, 600, 3600, 3600, 3600, 3600, 3600, 21600, 21600, 21600,
];
/** Each retry waits its scheduled delay plus up to this fraction more (never less, so the total stays >= 24 h). */
export const RETRY_JITTER_FRACTION = 0.1;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** How long a claim holds an event: well above the timeout, so a live attempt never loses it. */
export const DEFAULT_LEASE_MS = 60_000;
/**
 * How much longer than the attempt timeout a lease must be: the lease starts before the send (the claim, the
 * endpoint's read) and must outlast the attempt's record after it, and instances compare it on their own clocks.
 */
export const LEASE_MARGIN_MS = 15_000;
export const USER_AGENT = 'Rail-Webhooks/1.0';
/**
 * The failure_reason of a pending event whose endpoint was disabled or removed when its next attempt fell due: its
 * schedule ends there, as Stripe's does, and it is resent by hand (POST /events/{id}/retry). An event written while
 * there was no endpoint has none.
 */
export const ENDPOINT_UNAVAILABLE = 'endpoint_unavailable';

/** Delivery policy and the injected effects (HTTP, randomness). */
export interface WebhookDeliveryConfig {
  sender: WebhookSender;
  /** Uniform in [0, 1): jitter. */
  random: () => number;
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  leaseMs: number;
  /**
   * Each endpoint's places for attempts in flight in this process. The dispatcher, the retry and the test event take
   * them from this one object: the server gives the same config to all three.
   */
  endpointShares: EndpointAttemptShares;
}

/**
 * Why a lease of `leaseMs` cannot hold attempts that may last `timeoutMs`, or undefined when it can: a lease that runs
 * out while its attempt still waits for the endpoint lets another poll (or instance) claim the event and send it again.
 */
export function leaseTooShort(timeoutMs: number, leaseMs: number): string | undefined {
  if (leaseMs > timeoutMs + LEASE_MARGIN_MS) return undefined;
  return `the delivery lease (${leaseMs} ms) must be longer than the attempt timeout (${timeoutMs} ms) plus ${LEASE_MARGIN_MS} ms, or an attempt still waiting for its endpoint could be claimed and sent again`;
}

/** The delivery policy: the defaults under `overrides`. Throws when its lease is too short for its timeout. */
export function defaultWebhookDeliveryConfig(overrides: Partial<WebhookDeliveryConfig> = {}): WebhookDeliveryConfig {
  const config: WebhookDeliveryConfig = {
    sender: fetchWebhookSender,
    random: Math.random,
    retryScheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    leaseMs: DEFAULT_LEASE_MS,
    endpointShares: new EndpointAttemptShares(),
    ...overrides,
  };
  const problem = leaseTooShort(config.timeoutMs, config.leaseMs);
  if (problem !== undefined) throw new Error(`Webhook delivery: ${problem}.`);
  return config;
}

export interface DeliveryDeps {
  store: Store;
  clock: Clock;
}

/**
 * Delay before the next scheduled attempt after `scheduledAttemptsMade` attempts (the first attempt is
 * immediate), or undefined when the schedule is exhausted.
 */
export function nextRetryDelayMs(schedule: readonly number[], scheduledAttemptsMade: number, random: () => number): number | undefined {
  const seconds = schedule[scheduledAttemptsMade - 1];
  if (seconds === undefined) return undefined;
  return Math.round(seconds * 1000 * (1 + RETRY_JITTER_FRACTION * random()));
}

function outcomeFor(
  config: WebhookDeliveryConfig,
  event: WebhookEventRecord,
  trigger: AttemptTrigger,
  succeeded: boolean,
  now: Date,
): AttemptOutcome {
  // Spread last in each outcome (docs/architecture.md, "Objects on hot paths").
  const base = { lastAttemptAt: now, updatedAt: now };
  if (trigger === 'manual') {
    // A manual attempt does not move the schedule; it settles an event that was not delivered.
    if (succeeded) return { deliveryStatus: 'delivered', scheduledAttemptCount: event.scheduledAttemptCount, nextAttemptAt: null, failureReason: null, ...base };
    if (event.deliveryStatus === 'no_endpoint') {
      return { deliveryStatus: 'failed', scheduledAttemptCount: event.scheduledAttemptCount, nextAttemptAt: null, failureReason: 'manual_retry_failed', ...base };
    }
    return {
      deliveryStatus: event.deliveryStatus,
      scheduledAttemptCount: event.scheduledAttemptCount,
      nextAttemptAt: event.nextAttemptAt,
      failureReason: event.failureReason,
      ...base,
    };
  }
  const made = event.scheduledAttemptCount + 1;
  if (succeeded) return { deliveryStatus: 'delivered', scheduledAttemptCount: made, nextAttemptAt: null, failureReason: null, ...base };
  const delay = nextRetryDelayMs(config.retryScheduleSeconds, made, config.random);
  if (delay === undefined) {
    return { deliveryStatus: 'failed', scheduledAttemptCount: made, nextAttemptAt: null, failureReason: 'retries_exhausted', ...base };
  }
  return { deliveryStatus: 'pending', scheduledAttemptCount: made, nextAttemptAt: new Date(now.getTime() + delay), failureReason: null, ...base };
}

export interface DeliveryResult {
  attempt: WebhookAttemptRecord;
  /** False when the lease was lost before the result could be written (nothing was recorded). */
  recorded: boolean;
}

/** The headers of a delivery, a real event's or an endpoint's test event: JSON, Rail's user agent and the signatures. */
export function deliveryHeaders(secrets: Parameters<typeof webhookHeaders>[0], eventId: string, timestamp: number, body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...webhookHeaders(secrets, eventId, timestamp, body) };
}

/** Makes one attempt of an event the caller has claimed with `leaseId`, records it and releases the lease. */
export async function deliverClaimedEvent(
  deps: DeliveryDeps,
  config: WebhookDeliveryConfig,
  event: WebhookEventRecord,
  endpoint: UsableEndpoint,
  trigger: AttemptTrigger,
  leaseId: string,
): Promise<DeliveryResult> {
  const attemptedAt = deps.clock.now();
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const headers = deliveryHeaders(endpoint.secrets, event.eventId, timestamp, event.body);
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  try {
    const response = await config.sender.send({ url: endpoint.url, headers, body: event.body, timeoutMs: config.timeoutMs });
    statusCode = response.status;
    responseBody = response.body;
  } catch (cause) {
    error = describeSendError(cause);
  }
  const finishedAt = deps.clock.now();
  const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const attempt: WebhookAttemptRecord = {
    accountId: event.accountId,
    mode: event.mode,
    eventId: event.eventId,
    attemptNumber: event.attemptCount + 1,
    trigger,
    url: endpoint.url,
    attemptedAt,
    statusCode,
    error,
    durationMs: Math.max(0, finishedAt.getTime() - attemptedAt.getTime()),
    responseBody,
    succeeded,
  };
  const outcome = outcomeFor(config, event, trigger, succeeded, finishedAt);
  const recorded = await deps.store.transaction(async (tx) => {
    if (!(await tx.webhooks.completeAttempt(event.eventId, leaseId, outcome))) return false;
    await tx.webhooks.insertAttempt(attempt);
    return true;
  });
  return { attempt, recorded };
}

/** An endpoint with a URL, and the secrets a delivery at this moment is signed with (current first). */
export interface UsableEndpoint {
  url: string;
  secrets: string[];
}

/** The endpoint to deliver to at `now`, or undefined when there is none (no URL, or disabled). */
export function usableEndpoint(endpoint: DeliveryEndpoint | undefined, now: Date): UsableEndpoint | undefined {
  if (endpoint === undefined || endpoint.url === null || endpoint.url === '') return undefined;
  const overlap = endpoint.previousSecret !== null && endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > now;
  return { url: endpoint.url, secrets: overlap ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret] };
}
