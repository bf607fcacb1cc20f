/**
 * Idempotency-Key on every POST (api-conventions §5; IETF draft-ietf-httpapi-idempotency-key-header; Stripe).
 *
 * - Scope: a key belongs to (account, mode, key kind). A publishable-key caller can never replay what a secret-key
 *   call stored under the same key, and a rotated secret key still replays what the old one stored.
 * - Fingerprint: SHA-256 of method, path (with query) and the canonical JSON body (keys sorted; a body that is not
 *   JSON is hashed as its raw bytes). Whitespace and key order do not make a request "different".
 * - First request: atomically claims the key (insert; a duplicate means someone holds or held it), runs, and stores
 *   its response. An answer that asks to try again later releases the claim: a 5xx (our 5xx means the transaction
 *   did not commit, so the retry must run again; Stripe stores 500s too, we do not, see docs/idempotency.md), a 429,
 *   and the "try later" errors (TRY_LATER_CODES in core/shared/errors.ts).
 * - Repeat with the same fingerprint: the stored response. While the first still runs: ERR_4090 (409). Same key,
 *   different fingerprint: ERR_4091 (422).
 * - A claim whose holder crashed does not block forever: an in-flight row older than the lease may be re-claimed.
 * - Rows live for at least IDEMPOTENCY_TTL_MS; an expired row is re-claimable at once and a sweep deletes them.
 */
import { hash } from 'node:crypto';
import { CURRENT_IDS_SCHEME, type IdsScheme } from '../../kernel/ids';
import type { IdempotencyKeyRecord, IdempotencyScope, StoredResponse } from '../../storage/idempotency/records';
import { canonicalJson } from '../shared/canonical-json';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** How long a stored response is replayed (Stripe prunes keys once they are at least 24 hours old). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long an in-flight claim blocks repeats before a retry may take it over (its holder is presumed dead). */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** Longest key accepted (Stripe's limit). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const TOO_MANY_REQUESTS = 429;

const VISIBLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * The key from the header value, or undefined when none was sent. The IETF draft sends an sf-string (quoted);
 * Stripe clients send the bare value: `"abc"` and `abc` are the same key. Anything else than 1..255 visible ASCII
 * characters is ERR_2003 naming Idempotency-Key.
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  let key = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(key);
  if (quoted) key = (quoted[1] ?? '').replace(/\\(["\\])/g, '$1');
  if (key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !VISIBLE_ASCII.test(key)) {
    throw new ApiError('ERR_2003', `${IDEMPOTENCY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`, {
      fieldName: IDEMPOTENCY_HEADER,
    });
  }
  return key;
}

/** SHA-256 over method, path and the canonical body. `body` is the parsed JSON body, or the raw bytes when it is not JSON. */
export function requestFingerprint(method: string, path: string, body: { json: unknown } | { raw: Uint8Array }): string {
  // One-shot hashes of the same bytes as the former incremental hash (a Hash object costs more than the hashing).
  const head = `${method.toUpperCase()} ${path}\n`;
  if ('json' in body) return hash('sha256', `${head}json:${canonicalJson(body.json)}`, 'hex');
  const headBytes = Buffer.from(`${head}raw:`);
  return hash('sha256', Buffer.concat([headBytes, body.raw], headBytes.length + body.raw.length), 'hex');
}

export interface IdempotentRequest {
  method: string;
  path: string;
  fingerprint: string;
}

/**
 * execute: this request holds the key. `claimDurable` resolves once the claim survives a crash; the request may run
 * meanwhile (the claim is visible to repeats already) but must await it before it answers. `idsTime` starts the ids
 * it derives (kernel/ids.ts derivedIds): the first claim's, so that a re-run derives the same ones.
 */
export type IdempotencyDecision =
  | { kind: 'execute'; claimToken: string; claimDurable: Promise<void>; idsTime: Date | null; idsScheme: IdsScheme }
  | { kind: 'replay'; response: StoredResponse };

type Deps = Pick<CoreDeps, 'store' | 'clock' | 'ids'>;

function checkExisting(existing: IdempotencyKeyRecord, request: IdempotentRequest, now: Date): IdempotencyDecision | 'reclaim' {
  if (existing.expiresAt <= now) return 'reclaim';
  if (existing.fingerprint !== request.fingerprint) {
    throw new ApiError(
      'ERR_4091',
      `This ${IDEMPOTENCY_HEADER} was already used with a different request (${existing.method} ${existing.path} or another body). Use a new key for a new request.`,
      { fieldName: IDEMPOTENCY_HEADER },
    );
  }
  if (existing.status === 'done' && existing.response !== null) return { kind: 'replay', response: existing.response };
  if (existing.lockedAt.getTime() + IDEMPOTENCY_LEASE_MS <= now.getTime()) return 'reclaim';
  throw new ApiError('ERR_4090', `A request with this ${IDEMPOTENCY_HEADER} is still in flight; retry later.`, {
    fieldName: IDEMPOTENCY_HEADER,
  });
}

/**
 * Claims `key` for this request or decides what to answer instead. Throws ERR_4090 (in flight) or ERR_4091
 * (different request). A lost race for a re-claim is looked at again, a bounded number of times.
 */
export async function beginIdempotentRequest(
  deps: Deps,
  scope: IdempotencyScope,
  key: string,
  request: IdempotentRequest,
): Promise<IdempotencyDecision> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const now = deps.clock.now();
    const claim: IdempotencyKeyRecord = {
      accountId: scope.accountId,
      mode: scope.mode,
      keyKind: scope.keyKind,
      key,
      fingerprint: request.fingerprint,
      method: request.method,
      path: request.path,
      status: 'in_flight',
      claimToken: deps.ids.secret(24),
      lockedAt: now,
      response: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      idsTime: now,
      idsScheme: CURRENT_IDS_SCHEME,
    };
    const inserted = await deps.store.idempotency.insertClaim(claim);
    if (inserted.result === 'inserted') {
      return { kind: 'execute', claimToken: claim.claimToken, claimDurable: inserted.durable, idsTime: claim.idsTime, idsScheme: claim.idsScheme };
    }
    const existing = await deps.store.idempotency.findKey(scope, key);
    if (existing === undefined) continue; // released or swept between the insert and the read: try again
    const decision = checkExisting(existing, request, now);
    if (decision !== 'reclaim') return decision;
    // A claim whose holder died is the same request run again: it derives the ids the first run may have created.
    // An expired key is a new request.
    if (existing.expiresAt > now) {
      claim.idsTime = existing.idsTime;
      claim.idsScheme = existing.idsScheme;
    }
    if (await deps.store.idempotency.reclaim(claim, new Date(now.getTime() - IDEMPOTENCY_LEASE_MS))) {
      return { kind: 'execute', claimToken: claim.claimToken, claimDurable: Promise.resolve(), idsTime: claim.idsTime, idsScheme: claim.idsScheme };
    }
  }
  throw new ApiError('ERR_4090', `A request with this ${IDEMPOTENCY_HEADER} is still in flight; retry later.`, {
    fieldName: IDEMPOTENCY_HEADER,
  });
}

/**
 * Whether an answer asks for the same request again later: a 5xx (ours means nothing committed), a 429, and the
 * ApiError that answered when it says so (TRY_LATER_CODES, or thrown with `tryLater`).
 */
function asksToTryLater(status: number, error: unknown): boolean {
  return status >= 500 || status === TOO_MANY_REQUESTS || (error instanceof ApiError && error.tryLater && error.status === status);
}

/**
 * Records the outcome of the claim: an answer is stored for replay, unless it asks for the same request again later
 * (`answeredWith` is the error that gave it, if one did): then the key is released, since replayed, the retry it asks
 * for would get the same refusal for 24 hours.
 */
export async function finishIdempotentRequest(
  deps: Deps,
  scope: IdempotencyScope,
  key: string,
  claimToken: string,
  response: StoredResponse,
  answeredWith?: unknown,
): Promise<void> {
  if (asksToTryLater(response.status, answeredWith)) await deps.store.idempotency.release(scope, key, claimToken);
  else await deps.store.idempotency.complete(scope, key, claimToken, response);
}

/** Deletes expired keys (the periodic sweep; expired rows are also re-claimable on the spot). */
export async function purgeExpiredIdempotencyKeys(deps: Pick<CoreDeps, 'store' | 'clock'>): Promise<number> {
  return deps.store.idempotency.deleteExpired(deps.clock.now());
}
