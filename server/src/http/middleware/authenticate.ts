import { createMiddleware } from 'hono/factory';
import { PUBLISHABLE_KEY_QUERY_NAME } from '../../../../protocol/ids';
import { authenticateApiKey, parseApiKey, requireKeyKind, requireScope } from '../../core/auth/auth';
import { ApiError } from '../../core/shared/errors';
import { routeScope } from '../route-scopes';
import type { KeyKind } from '../../core/auth/auth-context';
import type { CoreDeps } from '../../core/shared/deps';
import type { AppEnv } from '../env';
import { runIdempotent } from './idempotency';

/** The key from `api-key`, else from `Authorization: Bearer <key>` (the `key` query parameter comes after both). */
export function readApiKey(apiKeyHeader: string | undefined, authorization: string | undefined): string | undefined {
  if (apiKeyHeader !== undefined && apiKeyHeader.trim() !== '') return apiKeyHeader.trim();
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/** The `key` query parameter as sent, on a GET or HEAD: where a browser's GET carries its publishable key. */
export function queryKeyAsSent(method: string, query: (name: string) => string | undefined): string | undefined {
  return method === 'GET' || method === 'HEAD' ? query(PUBLISHABLE_KEY_QUERY_NAME) : undefined;
}

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
 * Resolves the caller's key to an AuthContext (c.var.auth), refuses key kinds the route does not take and keys
 * without the route's scope (http/route-scopes.ts). On POST it
 * then applies the Idempotency-Key protocol to the rest of the chain (middleware/idempotency.ts): every
 * authenticated POST route, present and future, honours the header without registering anything. The one
 * exception opts out with `idempotency: false`: POST /vault/tokens, whose request fingerprint would be a hash of
 * the card number and CVC and whose stored answer would keep a psp_token (docs/open-points.md).
 */
export function authenticate(deps: CoreDeps, allowed: readonly KeyKind[], options: { idempotency?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const queryKey = allowed.includes('publishable') ? readQueryKey(queryKeyAsSent(c.req.method, (name) => c.req.query(name))) : undefined;
    const auth = await authenticateApiKey(deps, readApiKey(c.req.header('api-key'), c.req.header('authorization')) ?? queryKey);
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
