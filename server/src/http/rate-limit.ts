/**
 * Rate limits on the surfaces a browser or a stranger can reach (docs/security.md): token buckets per source
 * address and per publishable key. Secret-key calls are the merchant's own server and are not limited here; only
 * their failed authentications are, per source address, like every key's and every operator session token's
 * (failedAuthenticationLimit). The limits that guard secrets (sign-in, two-factor codes, failed authentications:
 * SHARED_SURFACES) are counted in the database, so every instance on it shares them (SharedRateLimiter); the others
 * are kept in each process, and behind a load balancer a client meets at most the configured one times the instance
 * count (docs/open-points.md).
 */
import { hash } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ErrorCode } from '../../../protocol/errors';
import { EPHEMERAL_KEY_PATTERN } from '../../../protocol/ids';
import type { Clock } from '../kernel/clock';
import { ApiError } from '../core/shared/errors';
import { FLOATING_POINT_ALLOWANCE_MS, type RateLimitBucketStore } from '../storage/rate-limits/store';
import type { AppEnv } from './env';
import { queryKeyAsSent, readApiKey } from './middleware/read-api-key';

/**
 * client_reads: retrieve, poll status, the payment-method lists and the subscription catalogue with a publishable
 * key, a customer with its ephemeral key; client_updates: update and eligibility with a publishable key; simulator:
 * the test simulator's pages, which take no key; operator_login: POST /v1/sessions and an invitation's acceptance, per
 * address and per e-mail and address (a sign-in's operator); operator_login_email: a sign-in's ceiling per e-mail,
 * all addresses together; operator_verify: two-factor codes, per address and per operator;
 * failed_authentication: keys refused with ERR_1002 on every key-authenticated route and session tokens refused with
 * ERR_1008 on every session route, per address only.
 * docs/security.md has the table.
 */
export const RATE_LIMITED_SURFACES = [
  'demo_payments',
  'vault_tokens',
  'confirm',
  'client_reads',
  'client_updates',
  'simulator',
  'operator_login',
  'operator_login_email',
  'operator_verify',
  'failed_authentication',
] as const;
export type RateLimitedSurface = (typeof RATE_LIMITED_SURFACES)[number];

/**
 * The surfaces whose limits guard secrets (a password, a two-factor code, a key or a session token), counted in the
 * database so that N instances do not let a guesser N times the limit. The others stay in each process: they bound
 * load, not guesses, and their routes (confirm, the browser's reads and updates) are the payment path, which a round
 * trip per request would slow.
 */
export const SHARED_SURFACES = ['operator_login', 'operator_login_email', 'operator_verify', 'failed_authentication'] as const satisfies readonly RateLimitedSurface[];
export type SharedSurface = (typeof SHARED_SURFACES)[number];
const isShared = (surface: RateLimitedSurface): surface is SharedSurface => (SHARED_SURFACES as readonly RateLimitedSurface[]).includes(surface);

/** At most `limit` requests per `windowSeconds`, refilled continuously (a burst of `limit` is allowed). */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface SurfaceLimits {
  perAddress: RateLimit | null;
  perKey: RateLimit | null;
}

export type RateLimits = Record<RateLimitedSurface, SurfaceLimits>;

const perMinute = (limit: number): RateLimit => ({ limit, windowSeconds: 60 });

/**
 * Defaults, per instance (on SHARED_SURFACES, over every instance on the database). Per address they allow a
 * customer (or a few behind one NAT) every retry a checkout needs; the frame polls a waiting payment every 2 s (30
 * reads a minute). Per key they cap what one merchant's public key can drive from all its customers at once.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  demo_payments: { perAddress: perMinute(20), perKey: null },
  vault_tokens: { perAddress: perMinute(30), perKey: perMinute(3_000) },
  confirm: { perAddress: perMinute(60), perKey: perMinute(6_000) },
  client_reads: { perAddress: perMinute(600), perKey: perMinute(30_000) },
  client_updates: { perAddress: perMinute(120), perKey: perMinute(6_000) },
  simulator: { perAddress: perMinute(120), perKey: null },
  // Per e-mail and address: wrong passwords from one address lock out that address only, never the operator.
  operator_login: { perAddress: perMinute(10), perKey: { limit: 10, windowSeconds: 15 * 60 } },
  // Guesses spread over many addresses: ten addresses at their limit reach it.
  operator_login_email: { perAddress: null, perKey: { limit: 100, windowSeconds: 15 * 60 } },
  operator_verify: { perAddress: perMinute(10), perKey: { limit: 5, windowSeconds: 5 * 60 } },
  // An honest integration fails authentication once, when its key is wrong, and then stops: 30 a minute is a
  // retrying loop of a few clients behind one NAT, far from a guesser's rate.
  failed_authentication: { perAddress: perMinute(30), perKey: null },
};

/**
 * Surfaces with one limit. A failed key is made up as often as not: a bucket per key as sent would count nothing.
 * A sign-in's e-mail ceiling is not per address by definition.
 */
const ONE_SCOPE_SURFACES: Partial<Record<RateLimitedSurface, 'per_address' | 'per_key'>> = {
  failed_authentication: 'per_address',
  operator_login_email: 'per_key',
};

/**
 * Parses RAIL_RATE_LIMITS over the defaults: `off`, or a comma-separated list of `surface.scope=limit/seconds`
 * (scope per_address or per_key; `off` instead of limit/seconds lifts that one limit). Returns an error text for a
 * bad value.
 */
export function parseRateLimits(value: string | undefined): RateLimits | null | { error: string } {
  if (value === undefined || value.trim() === '') return DEFAULT_RATE_LIMITS;
  if (value.trim() === 'off') return null;
  const limits: RateLimits = structuredClone(DEFAULT_RATE_LIMITS);
  for (const entry of value.split(',').map((part) => part.trim())) {
    const match = /^([a-z_]+)\.(per_address|per_key)=(?:(off)|(\d+)\/(\d+))$/.exec(entry);
    const surface = match?.[1] as RateLimitedSurface | undefined;
    if (match === null || surface === undefined || !RATE_LIMITED_SURFACES.includes(surface)) {
      return { error: `"${entry}" is not surface.per_address=N/SECONDS or surface.per_key=N/SECONDS with a surface of ${RATE_LIMITED_SURFACES.join(', ')}` };
    }
    const limit = match[3] === 'off' ? null : { limit: Number(match[4]), windowSeconds: Number(match[5]) };
    if (limit !== null && (limit.limit < 1 || limit.windowSeconds < 1)) return { error: `"${entry}" needs a limit and a window of at least 1` };
    const only = ONE_SCOPE_SURFACES[surface];
    if (only !== undefined && match[2] !== only) return { error: `"${entry}": ${surface} is limited ${only} only` };
    limits[surface][match[2] === 'per_address' ? 'perAddress' : 'perKey'] = limit;
  }
  return limits;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** Its rule (tokens back per millisecond, and how many it holds): a prune judges each bucket by its own. */
  perMs: number;
  limit: number;
}

/** Token buckets by name on an injected clock, in this process. Full buckets (each by its own rule) are dropped when the map grows past its bound. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly maxBuckets = 100_000,
  ) {}

  /** Takes one token from the bucket `name`; undefined when allowed, else the seconds until a token is back. */
  take(name: string, rule: RateLimit): number | undefined {
    const nowMs = this.clock.now().getTime();
    const perMs = rule.limit / (rule.windowSeconds * 1000);
    let bucket = this.buckets.get(name);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxBuckets) this.dropFullBuckets(nowMs);
      bucket = { tokens: rule.limit, updatedMs: nowMs, perMs, limit: rule.limit };
      this.buckets.set(name, bucket);
    } else {
      bucket.tokens = Math.min(rule.limit, bucket.tokens + Math.max(0, nowMs - bucket.updatedMs) * perMs);
      bucket.updatedMs = nowMs;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }

  /**
   * The seconds until the bucket `name` has a token, without taking one; undefined when it has one now. A bucket
   * that refilled is forgotten, so the map empties once its callers stop.
   */
  wait(name: string, rule: RateLimit): number | undefined {
    const bucket = this.buckets.get(name);
    if (bucket === undefined) return undefined;
    const perMs = rule.limit / (rule.windowSeconds * 1000);
    const tokens = bucket.tokens + Math.max(0, this.clock.now().getTime() - bucket.updatedMs) * perMs;
    if (tokens >= rule.limit) this.buckets.delete(name);
    if (tokens >= 1) return undefined;
    return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
  }

  private dropFullBuckets(nowMs: number): void {
    for (const [name, bucket] of this.buckets) {
      if (bucket.tokens + (nowMs - bucket.updatedMs) * bucket.perMs >= bucket.limit) this.buckets.delete(name);
    }
    // Still full of busy buckets: forget the oldest half rather than grow without bound.
    if (this.buckets.size >= this.maxBuckets) {
      let drop = Math.floor(this.buckets.size / 2);
      for (const name of this.buckets.keys()) {
        if (drop-- <= 0) break;
        this.buckets.delete(name);
      }
    }
  }
}

/** Whole seconds until `ms` from now, at least 1 (Retry-After). */
const secondsFor = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * Token buckets counted in the store (rate_limit_buckets), shared by every instance on the database: a take is one
 * upsert (storage/rate-limits/sql-store.ts), so of takes racing from several instances no more pass than a bucket
 * holds. Time is the injected clock (the system clock in production), carried into the statement; a bucket's time
 * never goes back (the later of its own and the taker's), so instances whose clocks are s seconds apart find at most
 * s * limit / window tokens more than the limit over a window (NTP keeps s well under a second).
 *
 * In front of the store each instance remembers the buckets it saw empty, and until when: a client that knocks on an
 * empty bucket again costs no round trip, and a bucket another instance emptied is learnt at this instance's next
 * take of it. Only empty buckets are remembered; the map is bounded like RateLimiter's. The bucket's row names its
 * surface and scope and a hash of what is counted (an address, an e-mail, an operator id): the table holds no
 * operator's e-mail, and its rows have one size whatever a client sends.
 */
export class SharedRateLimiter {
  private readonly emptyUntil = new Map<string, number>();
  private latestEmptyUntilMs = 0;

  constructor(
    private readonly buckets: RateLimitBucketStore,
    private readonly clock: Clock,
    private readonly maxRemembered = 100_000,
  ) {}

  /**
   * Takes one token from the bucket of `subject` (what it counts) in `scope` (its surface and scope, kept in clear in
   * the row); undefined when allowed, else the seconds until a token is back. A take the store refuses (the
   * bucket was emptied by another instance, or by a take of this one still in flight) cannot say when the next
   * token is back: this instance then waits `refusedFor`, an interval (a token is back within one) or a whole window.
   */
  async take(scope: string, subject: string, rule: RateLimit, refusedFor: 'interval' | 'window' = 'interval'): Promise<number | undefined> {
    const name = `${scope} ${subject}`;
    const known = this.wait(name);
    if (known !== undefined) return known;
    const nowMs = this.clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    const intervalMs = windowMs / rule.limit;
    const fullAtMs = await this.buckets.takeToken(`${scope} ${hash('sha256', subject, 'base64url')}`, { nowMs, intervalMs, windowMs });
    if (fullAtMs === undefined) {
      const waitMs = refusedFor === 'window' ? windowMs : intervalMs;
      this.remember(name, nowMs + waitMs);
      return secondsFor(waitMs);
    }
    // The instant the next take passes: once the bucket is an interval short of full-again-in-a-window.
    const nextTokenAtMs = fullAtMs + intervalMs - windowMs - FLOATING_POINT_ALLOWANCE_MS;
    if (nextTokenAtMs > nowMs) this.remember(name, nextTokenAtMs);
    return undefined;
  }

  /**
   * The seconds until the bucket `scope subject` has a token as far as this instance knows, reading nothing;
   * undefined when it may have one.
   */
  wait(name: string): number | undefined {
    const untilMs = this.emptyUntil.get(name);
    if (untilMs === undefined) return undefined;
    const nowMs = this.clock.now().getTime();
    if (untilMs > nowMs) return secondsFor(untilMs - nowMs);
    this.emptyUntil.delete(name);
    return undefined;
  }

  /** Whether this instance knows of any empty bucket; once the last one it knew of has a token, all are forgotten. */
  mayRefuse(): boolean {
    if (this.emptyUntil.size === 0) return false;
    if (this.clock.now().getTime() < this.latestEmptyUntilMs) return true;
    this.emptyUntil.clear();
    return false;
  }

  private remember(name: string, untilMs: number): void {
    if (this.emptyUntil.size >= this.maxRemembered && !this.emptyUntil.has(name)) {
      const nowMs = this.clock.now().getTime();
      for (const [known, knownUntilMs] of this.emptyUntil) if (knownUntilMs <= nowMs) this.emptyUntil.delete(known);
      // Still full: forget the oldest half (the store still counts them; only the round trip is saved).
      let drop = this.emptyUntil.size >= this.maxRemembered ? Math.floor(this.emptyUntil.size / 2) : 0;
      for (const known of this.emptyUntil.keys()) {
        if (drop-- <= 0) break;
        this.emptyUntil.delete(known);
      }
    }
    this.emptyUntil.set(name, untilMs);
    this.latestEmptyUntilMs = Math.max(this.latestEmptyUntilMs, untilMs);
  }
}

export interface RateLimitDeps {
  /** The surfaces counted in this process. */
  limiter: RateLimiter;
  /** operator_login, operator_login_email and operator_verify, counted in the database (SHARED_SURFACES). */
  shared: SharedRateLimiter;
  /**
   * The failed_authentication buckets, counted in the database too, apart: while this instance knows of no address
   * that emptied its bucket, an authentication reads nothing more.
   */
  failedAuthentications: SharedRateLimiter;
  limits: RateLimits;
  /**
   * How many proxies in front of this server append to X-Forwarded-For (RAIL_TRUSTED_PROXY_HOPS). 0: the socket's
   * address is the client's; N: the Nth address from the right of X-Forwarded-For is.
   */
  trustedProxyHops: number;
}

/** The client's address: the socket's, or the one the last trusted proxy saw. */
export function sourceAddress(c: Context, trustedProxyHops: number): string {
  if (trustedProxyHops > 0) {
    const forwarded = (c.req.header('x-forwarded-for') ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');
    const address = forwarded[forwarded.length - trustedProxyHops];
    if (address !== undefined) return address;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function tooManyRequests(c: Context, retryAfterSeconds: number): ApiError {
  c.header('Retry-After', String(retryAfterSeconds));
  return new ApiError('ERR_4290', `Too many requests; retry after ${retryAfterSeconds} seconds.`);
}

/**
 * Surfaces whose routes take no API key (the demo, the simulator's pages, an operator's sign-in and its second
 * factor): nothing there checks a key, so a header shaped like a secret key proves nothing and never lifts their
 * limits.
 */
const SURFACES_WITHOUT_API_KEYS: ReadonlySet<RateLimitedSurface> = new Set(['demo_payments', 'simulator', 'operator_login', 'operator_login_email', 'operator_verify']);

/**
 * Limits one surface per source address and per publishable key (the key as sent: a limit must hold before the
 * key is known to be valid; on a GET or HEAD without a header key, the `key` query parameter a browser's GET
 * carries). On a surface whose routes authenticate an API key, a secret key in a header skips both: that traffic is
 * the merchant's server, not a browser, and a made-up one is refused by the route's authentication (ERR_1002) as on
 * every secret-key route. A shared surface's buckets are taken in the database; the others' in this process, with no
 * await on the way.
 *
 * There a publishable key is public (it is in the merchant's page), so its bucket is taken only after an answer below
 * 400, by a request whose client_secret the route checked (`clientSecretIn`, where the route reads it): a stranger who
 * sends the key with a made-up client_secret, another account's payment id, a body the route refuses, or no
 * client_secret at all (a catalogue read) spends their address's tokens, never the key's, and cannot cut off the
 * merchant's checkouts. Each client_secret takes from the key at most at the surface's per-address rate, which one
 * customer's checkout stays inside: someone holding one valid client_secret, however many addresses they send from,
 * spends the key's bucket no faster (past that share their answers still go out, limited per address, uncounted). An
 * ephemeral key is one customer's secret: its bucket counts each answered request. The key's bucket is checked before
 * the request runs (an empty one refuses it) and taken after its answer, so concurrent requests can pass it by as
 * many as are in flight.
 */
export function rateLimit(deps: RateLimitDeps, surface: RateLimitedSurface, clientSecretIn?: 'query' | 'body') {
  const limits = deps.limits[surface];
  const takesApiKeys = !SURFACES_WITHOUT_API_KEYS.has(surface);
  const shared = isShared(surface);
  return createMiddleware<AppEnv>(async (c, next) => {
    const headerKey = readApiKey(c.req.header('api-key'), c.req.header('authorization'));
    if (takesApiKeys && headerKey?.startsWith('rail_full_')) return next();
    const key = headerKey ?? queryKeyAsSent(c.req.method, (name) => c.req.query(name));
    if (limits.perAddress !== null) {
      const address = sourceAddress(c, deps.trustedProxyHops);
      const wait = shared ? await deps.shared.take(`${surface} address`, address, limits.perAddress) : deps.limiter.take(`${surface} address ${address}`, limits.perAddress);
      if (wait !== undefined) throw tooManyRequests(c, wait);
    }
    if (limits.perKey === null || key === undefined) return next();
    if (!takesApiKeys) {
      const wait = shared ? await deps.shared.take(`${surface} key`, key, limits.perKey) : deps.limiter.take(`${surface} key ${key}`, limits.perKey);
      if (wait !== undefined) throw tooManyRequests(c, wait);
      return next();
    }
    const keyBucket = `${surface} key ${key}`;
    const wait = deps.limiter.wait(keyBucket, limits.perKey);
    if (wait !== undefined) throw tooManyRequests(c, wait);
    await next();
    if (c.res.status >= 400) return;
    if (!EPHEMERAL_KEY_PATTERN.test(key)) {
      const clientSecret = checkedClientSecret(c, clientSecretIn);
      if (clientSecret === undefined) return;
      if (limits.perAddress !== null && deps.limiter.take(`${surface} client_secret ${clientSecret}`, limits.perAddress) !== undefined) return;
    }
    deps.limiter.take(keyBucket, limits.perKey);
  });
}

/** The client_secret an answered request was let through with, read where its route reads it. */
function checkedClientSecret(c: Context, clientSecretIn: 'query' | 'body' | undefined): string | undefined {
  if (clientSecretIn === 'query') return c.req.query('client_secret');
  if (clientSecretIn !== 'body') return undefined;
  const body = (c.req.valid as (target: 'json') => unknown)('json');
  const clientSecret = body !== null && typeof body === 'object' ? (body as { client_secret?: unknown }).client_secret : undefined;
  return typeof clientSecret === 'string' ? clientSecret : undefined;
}

/**
 * Takes a token from a shared surface's per-key limit for a subject the route knows only after reading the request
 * (the e-mail of a login, the operator of a code), in the database (SharedRateLimiter).
 */
export async function limitSubject(c: Context, deps: RateLimitDeps | undefined, surface: Exclude<SharedSurface, 'failed_authentication'>, subject: string): Promise<void> {
  const rule = deps?.limits[surface].perKey;
  if (deps === undefined || rule === null || rule === undefined) return;
  const wait = await deps.shared.take(`${surface} subject`, subject, rule);
  if (wait !== undefined) throw tooManyRequests(c, wait);
}

/** A credential sent and refused: an API key (ERR_1002), an operator session token (ERR_1008). */
const REFUSED_CREDENTIAL_CODES: ReadonlySet<ErrorCode> = new Set(['ERR_1002', 'ERR_1008']);

/** What failedAuthenticationLimit gives the middleware that authenticates an API key. */
export interface FailedAuthenticationLimit {
  /**
   * Throws 429 ERR_4290 (with Retry-After) when this instance knows the caller's address has no failed
   * authentication left, unless `letThrough` (a key this process knows to be valid, looked up in memory) answers
   * true. Reads nothing from the database.
   */
  refuseWhenExhausted(c: Context, letThrough: () => boolean): void;
  /**
   * Counts `error` against the caller's address when it refused the credential (ERR_1002 a key, ERR_1008 a session
   * token), in the database; throws 429 ERR_4290 instead when the address had no failure left (another instance's
   * failures, or concurrent ones, emptied its bucket after this request passed refuseWhenExhausted).
   */
  countFailure(c: Context, error: unknown): Promise<void>;
}

const FAILED_AUTHENTICATION_SCOPE = 'failed_authentication address';

/**
 * The failed_authentication limit (docs/security.md), undefined when lifted: on every route that authenticates an
 * API key, of every kind, a key refused with ERR_1002 (malformed, made up, revoked, expired, a secret key in a URL),
 * and on every route that takes an operator session, a session token refused with ERR_1008 (malformed, unknown,
 * ended, expired), takes a token from its source address's bucket, one bucket for both, shared by every instance on
 * the database. Once an address's failures emptied it, every further authentication from there, by key or by
 * session, is refused with 429 before anything is read from the database, until a token is back, except with a valid
 * key this process keeps in memory (a merchant's servers' keys, in use): a client that keeps sending a revoked key
 * does not cut off the servers behind the same address. That check reads this instance's memory only: an instance
 * learns that others emptied the bucket at its own next failure from the address, which is answered 429 and
 * closes the address there for a whole window (an interval would let each instance one more guess per interval). A
 * successful authentication takes none and writes nothing. ERR_1001 (no key) and ERR_1008 without a token look
 * nothing up, and ERR_1003 / ERR_1004 answer a valid key: not counted.
 */
export function failedAuthenticationLimit(deps: RateLimitDeps | undefined): FailedAuthenticationLimit | undefined {
  const rule = deps?.limits.failed_authentication.perAddress;
  if (deps === undefined || rule === null || rule === undefined) return undefined;
  const failures = deps.failedAuthentications;
  return {
    refuseWhenExhausted(c, letThrough) {
      if (!failures.mayRefuse()) return;
      const wait = failures.wait(`${FAILED_AUTHENTICATION_SCOPE} ${sourceAddress(c, deps.trustedProxyHops)}`);
      if (wait !== undefined && !letThrough()) throw tooManyRequests(c, wait);
    },
    async countFailure(c, error) {
      if (!(error instanceof ApiError) || !REFUSED_CREDENTIAL_CODES.has(error.code)) return;
      let wait: number | undefined;
      try {
        wait = await failures.take(FAILED_AUTHENTICATION_SCOPE, sourceAddress(c, deps.trustedProxyHops), rule, 'window');
      } catch {
        // The store is unreachable: the refusal still answers (401), uncounted, rather than a 5xx.
        return;
      }
      if (wait !== undefined) throw tooManyRequests(c, wait);
    },
  };
}

/**
 * A sign-in's limits past its address's: per e-mail and source address (operator_login), so that wrong passwords
 * sent from one address never lock the operator out from another, and a higher ceiling per e-mail over every
 * address (operator_login_email) against guesses spread over many. An attempt its address's bucket refuses takes
 * nothing from the ceiling.
 */
export async function limitSignIn(c: Context, deps: RateLimitDeps | undefined, email: string): Promise<void> {
  if (deps === undefined) return;
  await limitSubject(c, deps, 'operator_login', `${email} from ${sourceAddress(c, deps.trustedProxyHops)}`);
  await limitSubject(c, deps, 'operator_login_email', email);
}

/**
 * Which routes each surface covers (Hono paths). Registered before the routes, so a limit holds before any work.
 * `clientSecret`: where the route reads the client_secret it checks with a publishable key (rateLimit: only such an
 * answer takes from the key's bucket).
 */
export const RATE_LIMITED_ROUTES: readonly { method: 'GET' | 'POST' | 'ALL'; path: string; surface: RateLimitedSurface; clientSecret?: 'query' | 'body' }[] = [
  { method: 'POST', path: '/demo/payments', surface: 'demo_payments' },
  { method: 'POST', path: '/vault/tokens', surface: 'vault_tokens', clientSecret: 'body' },
  { method: 'POST', path: '/payments/:payment_id/confirm', surface: 'confirm', clientSecret: 'body' },
  { method: 'GET', path: '/payments/:payment_id', surface: 'client_reads', clientSecret: 'query' },
  { method: 'GET', path: '/poll/status/:poll_id', surface: 'client_reads', clientSecret: 'query' },
  { method: 'GET', path: '/account/payment_methods', surface: 'client_reads', clientSecret: 'query' },
  // With an ephemeral key (a secret key skips it). It also counts GET /customers/payment_methods (publishable key),
  // of the same surface: a row of its own would take two tokens per request.
  { method: 'GET', path: '/customers/:customer_id', surface: 'client_reads', clientSecret: 'query' },
  // The catalogue takes a client_secret and does not check it: its reads never take from the key's bucket.
  { method: 'GET', path: '/subscriptions/items', surface: 'client_reads' },
  // Also POST /payments/session_tokens (same surface; a row of its own would take two tokens per request).
  { method: 'POST', path: '/payments/:payment_id', surface: 'client_updates', clientSecret: 'body' },
  { method: 'POST', path: '/payments/:payment_id/eligibility', surface: 'client_updates', clientSecret: 'body' },
  { method: 'POST', path: '/payments/:payment_id/3ds/authentication', surface: 'client_updates', clientSecret: 'body' },
  { method: 'POST', path: '/payments/:payment_id/post_session_tokens', surface: 'client_updates', clientSecret: 'body' },
  { method: 'POST', path: '/payments/:payment_id/complete_authorize', surface: 'confirm', clientSecret: 'body' },
  // A publishable-key confirm that pays the first invoice, with the subscription's client_secret.
  { method: 'POST', path: '/subscriptions/:subscription_id/confirm', surface: 'confirm', clientSecret: 'body' },
  { method: 'POST', path: '/payment_methods/:method_id/update', surface: 'client_updates', clientSecret: 'body' },
  // With an ephemeral key.
  { method: 'POST', path: '/customers/:customer_id/payment_methods/:payment_method_id/default', surface: 'client_updates' },
  { method: 'ALL', path: '/simulator/*', surface: 'simulator' },
  { method: 'POST', path: '/v1/sessions', surface: 'operator_login' },
  { method: 'POST', path: '/v1/operators/invitations/accept', surface: 'operator_login' },
  { method: 'POST', path: '/v1/sessions/verify', surface: 'operator_verify' },
];
