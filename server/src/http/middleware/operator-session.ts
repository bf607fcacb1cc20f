import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { requireKeyKind } from '../../core/auth/auth';
import type { CoreDeps } from '../../core/shared/deps';
import { ApiError } from '../../core/shared/errors';
import { authenticateSession } from '../../core/sessions/authenticate-session';
import type { OperatorContext } from '../../core/sessions/operator-context';
import type { AppEnv } from '../env';
import { type FailedAuthenticationLimit, failedAuthenticationLimit } from '../rate-limit';
import { type AuthenticateDeps, authenticateApiKeyUnderLimit, underFailureLimit } from './authenticate';
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
 * The operator of a session token, under the failed_authentication limit (rate-limit.ts): a token refused with ERR_1008
 * takes from its address's bucket, the one refused API keys take from, and an address over the limit is refused with
 * 429 before the token is looked up. Sessions are read from the store at every call, so none passes an exhausted
 * limit as a key kept in memory does.
 */
export function authenticateSessionUnderLimit(
  c: Context,
  deps: CoreDeps,
  failures: FailedAuthenticationLimit | undefined,
  token: string,
): Promise<OperatorContext> {
  return underFailureLimit(c, failures, () => undefined, () => authenticateSession(deps, token));
}

/**
 * Routes that take only an operator session (c.var.operator). `keyManagement`: the changes that need a fresh
 * two-factor (keys, spec rule 5; the settlement wallet; operators; webhook endpoints) answer ERR_1019 to an API key or
 * to no credential at all; the other session routes answer ERR_1008 (sign in first).
 */
export function operatorSession(deps: AuthenticateDeps, options: { keyManagement: boolean }) {
  const failures = failedAuthenticationLimit(deps.rateLimits);
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = readSessionToken(c);
    if (sentApiKey(c) || token === undefined) {
      if (options.keyManagement) {
        throw new ApiError('ERR_1019', 'This change takes an operator session with a fresh two-factor verification, not an API key (docs/keys.md).');
      }
      throw new ApiError('ERR_1008', 'This operation takes an operator session: sign in with POST /v1/sessions.');
    }
    c.set('operator', await authenticateSessionUnderLimit(c, deps, failures, token));
    return next();
  });
}

/**
 * GET /v1/api-keys takes "any authenticated call" (the spec): an operator session, or a secret key (a publishable
 * key is public, so it may not list keys: ERR_1003). Answers the caller's account.
 */
export async function callerAccountId(c: Context, deps: AuthenticateDeps): Promise<string> {
  const failures = failedAuthenticationLimit(deps.rateLimits);
  const token = readSessionToken(c);
  if (token !== undefined && !sentApiKey(c)) return (await authenticateSessionUnderLimit(c, deps, failures, token)).account.accountId;
  const auth = await authenticateApiKeyUnderLimit(c, deps, failures, () => readApiKey(c.req.header('api-key'), c.req.header('authorization')));
  requireKeyKind(auth, ['secret']);
  return auth.accountId;
}
