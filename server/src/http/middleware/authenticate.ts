import { createMiddleware } from 'hono/factory';
import { authenticateApiKey, requireKeyKind, requireScope } from '../../core/auth/auth';
import { ApiError } from '../../core/shared/errors';
import { ROUTE_SCOPES, routeKey } from '../route-scopes';
import type { KeyKind } from '../../core/auth/auth-context';
import type { CoreDeps } from '../../core/shared/deps';
import type { AppEnv } from '../env';
import { runIdempotent } from './idempotency';

/** The key from `api-key`, else from `Authorization: Bearer <key>`. */
export function readApiKey(apiKeyHeader: string | undefined, authorization: string | undefined): string | undefined {
  if (apiKeyHeader !== undefined && apiKeyHeader.trim() !== '') return apiKeyHeader.trim();
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
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
    const auth = await authenticateApiKey(deps, readApiKey(c.req.header('api-key'), c.req.header('authorization')));
    requireKeyKind(auth, allowed);
    const scope = ROUTE_SCOPES[routeKey(c.req.method === 'HEAD' ? 'GET' : c.req.method, c.req.routePath)];
    // A route missing from the table fails closed; route-scopes.test.ts keeps the table complete.
    if (scope === undefined) throw new ApiError('ERR_1004', 'This operation has no declared scope.');
    if (scope !== null) requireScope(auth, scope);
    c.set('auth', auth);
    if (options.idempotency === false) return next();
    return runIdempotent(deps, c, next);
  });
}
