import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { failedAuthenticationLimit } from '../rate-limit';
import { authenticate, type AuthenticateDeps } from './authenticate';
import { readApiKey } from './read-api-key';
import { authenticateSessionUnderLimit, readSessionToken } from './operator-session';

/**
 * Routes the spec gives to "api_key, jwt_key": a secret key (with the route's scope, as `authenticate` checks it),
 * or an operator session (the dashboard's token, `Authorization: Bearer ops_...` or the session cookie) when no API
 * key is sent. Without either the caller gets the API-key answer (ERR_1001). Both count refusals in the
 * failed_authentication limit.
 */
export function secretKeyOrOperatorSession(deps: AuthenticateDeps) {
  const byKey = authenticate(deps, ['secret']);
  const failures = failedAuthenticationLimit(deps.rateLimits);
  return createMiddleware<AppEnv>(async (c, next) => {
    const bearer = readApiKey(undefined, c.req.header('authorization'));
    const sentKey = (c.req.header('api-key') ?? '').trim() !== '' || (bearer !== undefined && !bearer.startsWith('ops_'));
    const token = readSessionToken(c);
    if (!sentKey && token !== undefined) {
      c.set('operator', await authenticateSessionUnderLimit(c, deps, failures, token));
      return next();
    }
    return byKey(c, next);
  });
}
