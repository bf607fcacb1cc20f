import type { Logger } from '../logger';
import type { AuthContext } from '../core/auth/auth-context';

/** Hono environment of the API app: what middleware puts on the context. */
export interface AppEnv {
  Variables: {
    auth: AuthContext;
    requestId: string;
    logger: Logger;
  };
}
