import type { Context } from 'hono';
import type { RequestLogger } from '../logger';
import type { AuthContext } from '../core/auth/auth-context';
import type { CoreDeps } from '../core/shared/deps';
import type { IdGenerator } from '../kernel/ids';
import type { OperatorContext } from '../core/sessions/operator-context';

/** Hono environment of the API app: what middleware puts on the context. */
export interface AppEnv {
  Variables: {
    auth: AuthContext;
    /** Set by http/middleware/operator-session.ts on the operator-session routes. */
    operator: OperatorContext;
    requestId: string;
    logger: RequestLogger;
    /** Set by http/middleware/idempotency.ts on a request run under an Idempotency-Key (kernel/ids.ts derivedIds). */
    derivedIds: IdGenerator;
  };
}

/**
 * The core's dependencies for this request: `deps` itself, or under an Idempotency-Key a copy whose ids are the
 * request's derived ids, so that a re-run after a crash creates the same objects (docs/idempotency.md). Every route
 * hands the core its deps through here.
 */
export function coreDeps<Deps extends CoreDeps>(c: Context<AppEnv>, deps: Deps): Deps {
  const ids = c.get('derivedIds');
  return ids === undefined ? deps : { ...deps, ids };
}
