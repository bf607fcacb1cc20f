/**
 * The store the webhook dispatcher and the events API use: delivery state of outbox events (written by
 * OutboxStore.insertEvent in the transaction of the state change) and their attempts. Every claim is a
 * conditional UPDATE on a lease (lease_id, locked_until), so several dispatchers on one PostgreSQL database never
 * hold the same event at once; SQLite runs one process.
 */
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { AttemptOutcome, DueEvent, ListEventsFilter, OutboxEventRecord, WebhookAttemptRecord, WebhookEventRecord } from './records';

/** The endpoint a delivery goes to, and the secrets it is signed with. */
export interface DeliveryEndpoint {
  /** null: no endpoint (none configured, or disabled); events are recorded as no_endpoint. */
  url: string | null;
  secret: string;
  /** After a secret rotation: the old secret, signing beside the new one until previousSecretUntil. */
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

export interface WebhookStore {
  /**
   * Where a mode's events go: the endpoint an operator registered for the mode (a disabled one has no URL), else the
   * account's endpoint from the environment (both modes); undefined when the account does not exist.
   */
  findWebhookEndpoint(scope: Scope): Promise<DeliveryEndpoint | undefined>;
  findEvent(scope: Scope, eventId: string): Promise<WebhookEventRecord | undefined>;
  /** Newest first (created, then event_id descending). */
  listEvents(scope: Scope, filter: ListEventsFilter): Promise<WebhookEventRecord[]>;
  /** Oldest first. */
  listAttempts(scope: Scope, eventId: string): Promise<WebhookAttemptRecord[]>;
  /**
   * Up to `limit` pending events due at `now` that no live lease holds, oldest due first, but those of the accounts
   * and modes in `excluding` (endpoints whose share of attempts is in flight); nothing is claimed.
   */
  listDueEvents(now: Date, limit: number, excluding?: readonly Scope[]): Promise<DueEvent[]>;
  /** The same for one account and mode alone (an endpoint's backlog, as its attempts finish). */
  listDueEventsOf(scope: Scope, now: Date, limit: number): Promise<DueEvent[]>;
  /**
   * Claims those of `eventIds` still pending, due and no live lease holds at `now`, for `leaseId` until `lockedUntil`;
   * in the order given. A row is claimed by a conditional UPDATE: of several concurrent callers exactly one gets it.
   */
  claimEvents(eventIds: readonly string[], now: Date, lockedUntil: Date, leaseId: string): Promise<WebhookEventRecord[]>;
  /** Claims one event whatever its status (manual redelivery), unless a live lease holds it. */
  claimEvent(scope: Scope, eventId: string, now: Date, lockedUntil: Date, leaseId: string): Promise<WebhookEventRecord | undefined>;
  /** Records an attempt (its number must be new for the event). */
  insertAttempt(attempt: WebhookAttemptRecord): Promise<void>;
  /**
   * Applies an attempt's outcome and releases the lease, only if `leaseId` still holds the event. False when the
   * lease was lost (it expired and another claimer took the event).
   */
  completeAttempt(eventId: string, leaseId: string, outcome: AttemptOutcome): Promise<boolean>;
  /**
   * Marks no_endpoint, with `failureReason`, those of `eventIds` still pending, due and free at `now` (a conditional
   * update, as a claim: an event another instance claimed meanwhile is left to it); returns how many. One statement
   * for the whole poll.
   */
  markDueNoEndpoint(eventIds: readonly string[], now: Date, failureReason: string): Promise<number>;
  /** Releases a lease without changing anything else. */
  releaseEvent(eventId: string, leaseId: string): Promise<void>;
}

export interface OutboxStore {
  /** Writes an event; a second event for the same (object, event type, object version) is a duplicate and is not written. */
  insertEvent(event: OutboxEventRecord): Promise<InsertResult>;
  listEventsForObject(scope: Scope, objectId: string): Promise<OutboxEventRecord[]>;
}

/** The events stores, as storage/stores.ts composes them into Stores. */
export interface EventsStores {
  outbox: OutboxStore;
  webhooks: WebhookStore;
}
