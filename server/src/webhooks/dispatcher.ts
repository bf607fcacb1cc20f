/**
 * The webhook dispatcher: a loop in the server process that claims due deliveries from the store, attempts them
 * (concurrently within a batch) and schedules retries. All its state is in the database, so a restart (or another
 * instance on the same PostgreSQL database) continues where it stopped; an attempt interrupted by a crash is
 * retried once its lease expires (at-least-once delivery, same event_id).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';
import type { Scope } from '../kernel/store-types';
import type { DeliveryEndpoint } from '../storage/events/store';
import { deliverClaimedEvent, usableEndpoint, type DeliveryDeps, type UsableEndpoint, type WebhookDeliveryConfig } from './delivery';

export interface DispatcherOptions {
  /** Pause between polls when nothing was due. */
  pollIntervalMs?: number;
  /** Events claimed per poll. */
  batchSize?: number;
  logger?: Logger;
  /** Lease ids (tests inject deterministic ones). */
  newLeaseId?: () => string;
}

export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_BATCH_SIZE = 20;

export class WebhookDispatcher {
  readonly #deps: DeliveryDeps;
  readonly #config: WebhookDeliveryConfig;
  readonly #pollIntervalMs: number;
  readonly #batchSize: number;
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
    this.#logger = options.logger;
    this.#newLeaseId = options.newLeaseId ?? randomUUID;
  }

  /**
   * Takes the events due now (up to one batch): those of an account and mode without a usable endpoint are marked
   * no_endpoint together, in one conditional update and without a claim; the others are claimed and attempted once
   * each, concurrently. Returns how many were marked or claimed. Tests drive the dispatcher with this and an
   * injected clock instead of start().
   */
  async runOnce(): Promise<number> {
    const { store, clock } = this.#deps;
    const now = clock.now();
    const due = await store.webhooks.listDueEvents(now, this.#batchSize);
    if (due.length === 0) return 0;
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
      handled += await store.webhooks.markDueNoEndpoint(noEndpoint, clock.now());
    } catch (error) {
      // Still pending and due: looked at again at the next poll.
      this.#logger?.error({ err: error, events: noEndpoint.length }, 'could not record events without an endpoint');
    }
    const leaseId = this.#newLeaseId();
    const claimed = await store.webhooks.claimEvents([...deliverable.keys()], now, new Date(now.getTime() + this.#config.leaseMs), leaseId);
    handled += claimed.length;
    await Promise.all(
      claimed.map(async (event) => {
        try {
          const { attempt, recorded } = await deliverClaimedEvent(this.#deps, this.#config, event, deliverable.get(event.eventId)!, 'scheduled', leaseId);
          this.#logger?.info(
            { event_id: event.eventId, attempt: attempt.attemptNumber, status_code: attempt.statusCode, error: attempt.error, recorded },
            'webhook attempt',
          );
        } catch (error) {
          // The lease expires and the event is claimed again later.
          this.#logger?.error({ err: error, event_id: event.eventId }, 'webhook delivery failed unexpectedly');
        }
      }),
    );
    return handled;
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
      const run = this.runOnce().then(
        (count) => count,
        (error: unknown) => {
          this.#logger?.error({ err: error }, 'webhook dispatcher poll failed');
          return 0;
        },
      );
      this.#running = run;
      void run.then((count) => {
        this.#running = undefined;
        this.#schedule(count >= this.#batchSize ? 0 : this.#pollIntervalMs);
      });
    }, delayMs);
  }

  /** Stops polling and waits for the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
