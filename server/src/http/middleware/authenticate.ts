import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { authenticateApiKey, authenticateKeptApiKey, parseApiKey, requireKeyKind, requireScope } from '../../core/auth/auth';
import { ApiError } from '../../core/shared/errors';
import { routeScope } from '../route-scopes';
import type { AuthContext, KeyKind } from '../../core/auth/auth-context';
import type { CoreDeps } from '../../core/shared/deps';
import type { AppEnv } from '../env';
import { type FailedAuthenticationLimit, failedAuthenticationLimit, type RateLimitDeps } from '../rate-limit';
import { runIdempotent } from './idempotency';
import { queryKeyAsSent, readApiKey } from './read-api-key';

/**
 * The key of a browser GET or HEAD that sent none in a header: the `key` query parameter (protocol/api/key-query.ts),
 * read only on routes that take a publishable key. Only a publishable key is accepted there: a secret or ephemeral
 * key (or anything else) in a URL is refused with ERR_1002, even beside a header key, since a URL lands in logs,
 * histories and Referer headers and the key must be rotated. A header key wins over a valid query key.
 */
function readQueryKey(queryKey: string | undefined): string | undefined {
  if (queryKey === undefined) return undefined;
  if (parseApiKey(queryKey)?.keyType !== 'open') {
    throw new ApiError('ERR_1002', 'Only a publishable key may be sent in the key query parameter; secret keys are never accepted in a URL.');
  }
  return queryKey;
}

/**
 * Runs `authenticateCaller` under the failed_authentication limit, when there is one (rate-limit.ts): an address over
 * it is refused with 429 before anything is read, unless `keptCaller` answers a caller from memory; a refused
 * credential counts against the address (and is answered 429 instead when the address had no failure left). The same limit (one bucket per address) covers API keys and operator session
 * tokens.
 */
export async function underFailureLimit<Caller>(
  c: Context,
  failures: FailedAuthenticationLimit | undefined,
  keptCaller: () => Caller | undefined,
  authenticateCaller: () => Promise<Caller>,
): Promise<Caller> {
  if (failures !== undefined) {
    let kept: Caller | undefined;
    failures.refuseWhenExhausted(c, () => (kept = keptCaller()) !== undefined);
    if (kept !== undefined) return kept;
  }
  try {
    return await authenticateCaller();
  } catch (error) {
    await failures?.countFailure(c, error);
    throw error;
  }
}

/**
 * The caller of the API key `sentKey` gives, under the failed_authentication limit: a valid key this process keeps in
 * memory passes an exhausted limit.
 */
export function authenticateApiKeyUnderLimit(
  c: Context,
  deps: CoreDeps,
  failures: FailedAuthenticationLimit | undefined,
  sentKey: () => string | undefined,
): Promise<AuthContext> {
  return underFailureLimit(c, failures, () => authenticateKeptApiKey(deps, sentKey()), () => authenticateApiKey(deps, sentKey()));
}

/**
 * What authenticating needs: the core's dependencies and the app's rate limits (AppDeps), undefined only when they
 * are off. The key is required, so that a route registered with the core's deps alone does not compile, where it
 * would authenticate without the failed_authentication limit; rate-limit.test.ts sends a refused key and a refused
 * session token to every route of docs/authorization.md that takes one.
 */
export type AuthenticateDeps = CoreDeps & { rateLimits: RateLimitDeps | undefined };

/**
 * Resolves the caller's key to an AuthContext (c.var.auth), refuses key kinds the route does not take and keys
 * without the route's scope (http/route-scopes.ts). A key refused with ERR_1002 counts against the caller's address,
 * and an address over the failed_authentication limit is refused with 429 before its key is read (rate-limit.ts).
 * On POST it
 * then applies the Idempotency-Key protocol to the rest of the chain (middleware/idempotency.ts): every
 * authenticated POST route, present and future, honours the header without registering anything. The one
 * exception opts out with `idempotency: false`: POST /vault/tokens, whose request fingerprint would be a hash of
 * the card number and CVC and whose stored answer would keep a psp_token (docs/open-points.md).
 */
export function authenticate(deps: AuthenticateDeps, allowed: readonly KeyKind[], options: { idempotency?: boolean } = {}) {
  const failures = failedAuthenticationLimit(deps.rateLimits);
  return createMiddleware<AppEnv>(async (c, next) => {
    const sentKey = () => {
      const queryKey = allowed.includes('publishable') ? readQueryKey(queryKeyAsSent(c.req.method, (name) => c.req.query(name))) : undefined;
      return readApiKey(c.req.header('api-key'), c.req.header('authorization')) ?? queryKey;
    };
    const auth = await authenticateApiKeyUnderLimit(c, deps, failures, sentKey);
    requireKeyKind(auth, allowed);
    const scope = routeScope(c.req.method === 'HEAD' ? 'GET' : c.req.method, c.req.routePath);
    // A route missing from the table fails closed; route-scopes.test.ts keeps the table complete.
    if (scope === undefined) throw new ApiError('ERR_1004', 'This operation has no declared scope.');
    if (scope !== null) requireScope(auth, scope);
    c.set('auth', auth);
    if (options.idempotency === false) return next();
    return runIdempotent(deps, c, next);
  });
}
