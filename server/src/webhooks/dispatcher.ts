/**
 * The webhook dispatcher: a loop in the server process that claims due deliveries from the store, attempts them
 * (concurrently, and without waiting for one poll's attempts before the next poll) and schedules retries. All its
 * state is in the database, so a restart (or another instance on the same PostgreSQL database) continues where it
 * stopped; an attempt interrupted by a crash is retried once its lease expires (at-least-once delivery, same
 * event_id). One endpoint has at most its share of attempts in flight per process (config.endpointShares, which
 * manual retries and test events take from too), so one that answers slowly never takes the attempts the other
 * endpoints need.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Scope } from '../kernel/store-types';
import type { DueEvent, WebhookEventRecord } from '../storage/events/records';
import type { DeliveryEndpoint } from '../storage/events/store';
import { deliverClaimedEvent, ENDPOINT_UNAVAILABLE, usableEndpoint, type DeliveryDeps, type UsableEndpoint, type WebhookDeliveryConfig } from './delivery';
import type { EndpointAttemptShares } from './endpoint-shares';

export interface DispatcherOptions {
  /** Pause between polls when nothing was due. */
  pollIntervalMs?: number;
  /** Events claimed per poll. */
  batchSize?: number;
  /** Attempts in flight at most while polling (start()): the next poll claims only up to this. */
  maxInFlight?: number;
  logger?: Logger;
  /** Lease ids (tests inject deterministic ones). */
  newLeaseId?: () => string;
}

export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_BATCH_SIZE = 20;
/**
 * Polling goes on while attempts are in flight, up to this many: an endpoint that does not answer holds its own
 * attempts until the timeout (10 s), not every other endpoint's behind it.
 */
export const DEFAULT_MAX_IN_FLIGHT = 200;

/** The endpoint an event goes to: one per account and mode. */
const endpointKey = (scope: Scope) => `${scope.accountId} ${scope.mode}`;

/** The dispatcher's own attempts to one endpoint; the places they hold are counted in config.endpointShares. */
interface EndpointAttempts {
  scope: Scope;
  /** This dispatcher's attempts in flight. */
  count: number;
  /**
   * A poll left events of this endpoint behind for its share: the polls leave it out until these attempts are done,
   * so that its backlog, oldest due, does not fill every listing ahead of other endpoints' events; meanwhile each
   * attempt that finishes refills its place from the endpoint's own due events (#refill).
   */
  backlogged: boolean;
  /** A refill of this endpoint is listing and claiming; `refillAgain`: an attempt finished meanwhile. */
  refilling: boolean;
  refillAgain: boolean;
}
export class WebhookDispatcher {
  readonly #deps: DeliveryDeps;
  readonly #config: WebhookDeliveryConfig;
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
  readonly #maxInFlight: number;
  readonly #shares: EndpointAttemptShares;
  /** Attempts started by the polling loop and not finished yet. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts not finished yet (polling and runOnce), by endpoint. */
  readonly #inFlightByEndpoint = new Map<string, EndpointAttempts>();
  /** The last poll left due events it listed, or its listing was full: a finished attempt polls again. */
  #leftBehind = false;
  /** An attempt finished during a poll that left events behind: the next poll follows at once. */
  #pollAgain = false;
  readonly #logger: Logger | undefined;
  readonly #newLeaseId: () => string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #started = false;
  #stopping = false;

  constructor(deps: DeliveryDeps, config: WebhookDeliveryConfig, options: DispatcherOptions = {}) {
    this.#deps = deps;
    this.#config = config;
    this.#pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#shares = config.endpointShares;
    this.#logger = options.logger;
    this.#newLeaseId = options.newLeaseId ?? randomUUID;
  }

  /**
   * Takes the events due now (up to one batch) and waits for their attempts: those of an account and mode without a
   * usable endpoint are marked no_endpoint together, in one conditional update and without a claim; the others are
   * claimed and attempted once each, concurrently, up to each endpoint's share. Returns how many were marked or
   * claimed. Tests drive the dispatcher with this and an injected clock instead of start().
   */
  async runOnce(): Promise<number> {
    const { handled, attempts } = await this.#claimAndStart(this.#batchSize);
    await Promise.all(attempts);
    return handled;
  }

  /** Endpoints with their whole share in flight (manual attempts included), or backlogged: their events are not even listed. */
  #fullEndpoints(): Scope[] {
    const full = new Map<string, Scope>();
    for (const scope of this.#shares.full()) full.set(endpointKey(scope), scope);
    for (const [key, { scope, backlogged }] of this.#inFlightByEndpoint) if (backlogged) full.set(key, scope);
    return [...full.values()];
  }

  /** An attempt of this dispatcher started; its place in the endpoint's share was taken before its claim. */
  #attemptStarted(scope: Scope): void {
    const key = endpointKey(scope);
    const entry = this.#inFlightByEndpoint.get(key);
    if (entry === undefined) this.#inFlightByEndpoint.set(key, { scope: { accountId: scope.accountId, mode: scope.mode }, count: 1, backlogged: false, refilling: false, refillAgain: false });
    else entry.count += 1;
  }

  #attemptFinished(scope: Scope): void {
    this.#shares.release(scope);
    const key = endpointKey(scope);
    const entry = this.#inFlightByEndpoint.get(key)!;
    entry.count -= 1;
    if (entry.count === 0) this.#inFlightByEndpoint.delete(key);
    // A backlogged endpoint with attempts still out takes the next of its own due events in this one's place, so that
    // one slow attempt does not hold its other places empty until it ends.
    else if (entry.backlogged) this.#refill(entry);
    // A backlogged endpoint's events can be listed again, or the last poll left events behind: poll now rather than
    // after the interval (not at every finished attempt, which under load would poll as often as attempts finish).
    if ((entry.backlogged && entry.count === 0) || this.#leftBehind) this.#pollSoon();
  }

  /** Claims and starts a backlogged endpoint's due events up to its share (polling loop only), one refill at a time. */
  #refill(entry: EndpointAttempts): void {
    if (!this.#started || this.#stopping) return;
    if (entry.refilling) {
      entry.refillAgain = true;
      return;
    }
    const room = Math.min(this.#shares.limit - this.#shares.inFlight(entry.scope), this.#room());
    if (room <= 0) return;
    entry.refilling = true;
    const refill = this.#claimAndStart(room, entry.scope)
      .then(({ handled, attempts }) => {
        this.#track(attempts);
        // Its backlog is gone: the polls list it again (up to its share).
        if (handled < room) entry.backlogged = false;
      })
      .catch((error: unknown) => this.#logger?.error({ err: error }, 'webhook dispatcher refill failed'))
      .finally(() => {
        entry.refilling = false;
        if (!entry.refillAgain) return;
        entry.refillAgain = false;
        if (entry.backlogged && entry.count > 0) this.#refill(entry);
      });
    this.#track([refill]);
  }

  /** Attempts (and refills) the polling loop waits for at stop, and counts against maxInFlight. */
  #track(attempts: readonly Promise<void>[]): void {
    for (const attempt of attempts) {
      this.#inFlight.add(attempt);
      void attempt.finally(() => this.#inFlight.delete(attempt));
    }
  }

  /** The next poll, now: instead of the pending wait, or right after the poll that is running. */
  #pollSoon(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#schedule(0);
    } else if (this.#running !== undefined) {
      this.#pollAgain = true;
    }
  }

  /**
   * Marks or claims up to `limit` due events and starts the attempts of those claimed, without waiting for them.
   * An endpoint gets no more attempts than its share; its other due events are left pending, unclaimed, for a later
   * poll (another instance may take them meanwhile).
   */
  async #claimAndStart(limit: number, only?: Scope): Promise<{ handled: number; attempts: Promise<void>[] }> {
    const { store, clock } = this.#deps;
    const now = clock.now();
    const due = only === undefined ? await store.webhooks.listDueEvents(now, limit, this.#fullEndpoints()) : await store.webhooks.listDueEventsOf(only, now, limit);
    // More may be due behind a full listing (a refill's listing is its endpoint's alone).
    if (only === undefined) this.#leftBehind = due.length === limit;
    if (due.length === 0) return { handled: 0, attempts: [] };
    // One look-up per account and mode of the batch.
    const endpoints = new Map<string, Promise<DeliveryEndpoint | undefined>>();
    const endpointOf = (event: Scope) => {
      const key = `${event.accountId} ${event.mode}`;
      let lookup = endpoints.get(key);
      if (lookup === undefined) {
        lookup = store.webhooks.findWebhookEndpoint({ accountId: event.accountId, mode: event.mode });
        endpoints.set(key, lookup);
      }
      return lookup;
    };
    const noEndpoint: string[] = [];
    const deliverable = new Map<string, UsableEndpoint>();
    await Promise.all(
      due.map(async (event) => {
        try {
          const endpoint = usableEndpoint(await endpointOf(event), now);
          if (endpoint === undefined) noEndpoint.push(event.eventId);
          else deliverable.set(event.eventId, endpoint);
        } catch (error) {
          // Neither marked nor claimed: the event is due again at the next poll.
          this.#logger?.error({ err: error, event_id: event.eventId }, 'could not read the webhook endpoint');
        }
      }),
    );
    let handled = 0;
    try {
      handled += await store.webhooks.markDueNoEndpoint(noEndpoint, clock.now(), ENDPOINT_UNAVAILABLE);
    } catch (error) {
      // Still pending and due: looked at again at the next poll.
      this.#logger?.error({ err: error, events: noEndpoint.length }, 'could not record events without an endpoint');
    }
    // Oldest due first, each endpoint up to its share: a place is taken before the claim, so that a manual retry
    // meanwhile finds it taken; the places of events another instance claimed first are given back.
    const toClaim: DueEvent[] = [];
    const backlogged = new Set<string>();
    for (const event of due) {
      if (!deliverable.has(event.eventId)) continue;
      if (!this.#shares.tryTake(event)) {
        this.#leftBehind = true;
        backlogged.add(endpointKey(event));
        continue;
      }
      toClaim.push(event);
    }
    const leaseId = this.#newLeaseId();
    let claimed: WebhookEventRecord[] = [];
    try {
      claimed = await store.webhooks.claimEvents(
        toClaim.map((event) => event.eventId),
        now,
        new Date(now.getTime() + this.#config.leaseMs),
        leaseId,
      );
    } finally {
      const claimedIds = new Set(claimed.map((event) => event.eventId));
      for (const event of toClaim) if (!claimedIds.has(event.eventId)) this.#shares.release(event);
    }
    handled += claimed.length;
    for (const event of claimed) this.#attemptStarted(event);
    for (const key of backlogged) {
      const entry = this.#inFlightByEndpoint.get(key);
      if (entry !== undefined) entry.backlogged = true;
    }
    const attempts = claimed.map(async (event) => {
      try {
        const { attempt, recorded } = await deliverClaimedEvent(this.#deps, this.#config, event, deliverable.get(event.eventId)!, 'scheduled', leaseId);
        this.#logger?.info(
          { event_id: event.eventId, attempt: attempt.attemptNumber, status_code: attempt.statusCode, error: attempt.error, recorded },
          'webhook attempt',
        );
      } catch (error) {
        // The lease expires and the event is claimed again later.
        this.#logger?.error({ err: error, event_id: event.eventId }, 'webhook delivery failed unexpectedly');
      } finally {
        this.#attemptFinished(event);
      }
    });
    return { handled, attempts };
  }

  /** Runs until nothing is due at the clock's current time (tests). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.runOnce();
      total += count;
      if (count === 0) return total;
    }
  }

  /** Starts polling. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const run = this.#poll().then(
        (count) => count,
        (error: unknown) => {
          this.#logger?.error({ err: error }, 'webhook dispatcher poll failed');
          return 0;
        },
      );
      this.#running = run;
      void run.then((count) => {
        this.#running = undefined;
        const again = this.#pollAgain;
        this.#pollAgain = false;
        this.#schedule(count >= this.#batchSize || again ? 0 : this.#pollIntervalMs);
      });
    }, delayMs);
  }

  /** How many more attempts the polling loop may start now. */
  #room(): number {
    return Math.max(0, this.#maxInFlight - this.#inFlight.size);
  }

  /**
   * One poll of the loop: claims up to a batch (fewer when the attempts in flight are near maxInFlight) and leaves
   * their attempts running, so that the next poll does not wait for an endpoint that is slow to answer. A claimed
   * event's lease keeps it from being claimed again meanwhile.
   */
  async #poll(): Promise<number> {
    const limit = Math.min(this.#batchSize, this.#room());
    if (limit === 0) return 0;
    const { handled, attempts } = await this.#claimAndStart(limit);
    this.#track(attempts);
    return handled;
  }

  /** Stops polling and waits for the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await Promise.all(this.#inFlight);
  }
}
