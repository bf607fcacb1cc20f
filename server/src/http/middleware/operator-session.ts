import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { authenticateApiKey, requireKeyKind } from '../../core/auth/auth';
import type { CoreDeps } from '../../core/shared/deps';
import { ApiError } from '../../core/shared/errors';
import { authenticateSession } from '../../core/sessions/authenticate-session';
import type { AppEnv } from '../env';
import { failedAuthenticationLimit } from '../rate-limit';
import { type AuthenticateDeps, underFailureLimit } from './authenticate';
import { readApiKey } from './read-api-key';

/** The cookie a browser keeps its operator session in (HttpOnly, SameSite=Strict; Secure outside localhost). */
export const SESSION_COOKIE = 'rail_session';

/** The session token from `Authorization: Bearer ops_...`, else the session cookie. */
export function readSessionToken(c: Context): string | undefined {
  const bearer = readApiKey(undefined, c.req.header('authorization'));
  if (bearer?.startsWith('ops_')) return bearer;
  return getCookie(c, SESSION_COOKIE);
}

/** True when the caller sent an API key (api-key header, or a bearer that is not a session token). */
function sentApiKey(c: Context): boolean {
  const bearer = readApiKey(undefined, c.req.header('authorization'));
  return (c.req.header('api-key') ?? '').trim() !== '' || (bearer !== undefined && !bearer.startsWith('ops_'));
}

/**
 * Routes that take only an operator session (c.var.operator). `keyManagement`: the changes that need a fresh
 * two-factor (keys, spec rule 5; the settlement wallet; operators; webhook endpoints) answer ERR_1019 to an API key or
 * to no credential at all; the other session routes answer ERR_1008 (sign in first).
 */
export function operatorSession(deps: CoreDeps, options: { keyManagement: boolean }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = readSessionToken(c);
    if (sentApiKey(c) || token === undefined) {
      if (options.keyManagement) {
        throw new ApiError('ERR_1019', 'This change takes an operator session with a fresh two-factor verification, not an API key (docs/keys.md).');
      }
      throw new ApiError('ERR_1008', 'This operation takes an operator session: sign in with POST /v1/sessions.');
    }
    c.set('operator', await authenticateSession(deps, token));
    return next();
  });
}

/**
 * GET /v1/api-keys takes "any authenticated call" (the spec): an operator session, or a secret key (a publishable
 * key is public, so it may not list keys: ERR_1003). Answers the caller's account.
 */
export async function callerAccountId(c: Context, deps: AuthenticateDeps): Promise<string> {
  const token = readSessionToken(c);
  if (token !== undefined && !sentApiKey(c)) return (await authenticateSession(deps, token)).account.accountId;
  const sentKey = () => readApiKey(c.req.header('api-key'), c.req.header('authorization'));
  const auth = await underFailureLimit(c, deps, failedAuthenticationLimit(deps.rateLimits), sentKey, () => authenticateApiKey(deps, sentKey()));
  requireKeyKind(auth, ['secret']);
  return auth.accountId;
}
