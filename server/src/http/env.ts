import type { RequestLogger } from '../logger';
import type { AuthContext } from '../core/auth/auth-context';
import type { OperatorContext } from '../core/sessions/operator-context';

/** Hono environment of the API app: what middleware puts on the context. */
export interface AppEnv {
  Variables: {
    auth: AuthContext;
    /** Set by http/middleware/operator-session.ts on the operator-session routes. */
    operator: OperatorContext;
    requestId: string;
    logger: RequestLogger;
  };
}
