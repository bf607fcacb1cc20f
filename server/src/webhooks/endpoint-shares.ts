/**
 * The attempts in flight to each endpoint (an account and mode) in this process, whoever makes them: the dispatcher's
 * scheduled attempts, POST /events/{event_id}/retry and an endpoint's test event. Each endpoint has at most `limit`
 * places; an attempt takes one before its request and gives it back when the request has ended, so one endpoint that
 * answers slowly never holds more than its share of the process's sockets, however often it is retried by hand.
 */
import type { Scope } from '../kernel/store-types';

/**
 * A small share per endpoint (as Stripe and Svix limit their concurrency per endpoint): an endpoint that does not
 * answer holds 5 attempts until the timeout. Per process: N instances make up to N x 5.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 5;

interface Places {
  scope: Scope;
  taken: number;
}

const endpointKey = (scope: Scope) => `${scope.accountId} ${scope.mode}`;

export class EndpointAttemptShares {
  readonly limit: number;
  readonly #taken = new Map<string, Places>();

  constructor(limit: number = DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT) {
    this.limit = limit;
  }

  /** Places taken by attempts to this endpoint now. */
  inFlight(scope: Scope): number {
    return this.#taken.get(endpointKey(scope))?.taken ?? 0;
  }

  /** Takes one of the endpoint's places if one is free; the caller gives it back with release() once its request ended. */
  tryTake(scope: Scope): boolean {
    const key = endpointKey(scope);
    const places = this.#taken.get(key);
    if ((places?.taken ?? 0) >= this.limit) return false;
    if (places === undefined) this.#taken.set(key, { scope: { accountId: scope.accountId, mode: scope.mode }, taken: 1 });
    else places.taken += 1;
    return true;
  }

  release(scope: Scope): void {
    const key = endpointKey(scope);
    const places = this.#taken.get(key);
    if (places === undefined) return;
    places.taken -= 1;
    if (places.taken <= 0) this.#taken.delete(key);
  }

  /** The endpoints with every place taken. */
  full(): Scope[] {
    const full: Scope[] = [];
    for (const { scope, taken } of this.#taken.values()) if (taken >= this.limit) full.push(scope);
    return full;
  }
}
