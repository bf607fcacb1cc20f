import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/shared/errors';
import type { AppEnv } from '../env';
import { errorResponse } from '../error-handler';

/**
 * The spec's ERR_5005 (503, "key service temporarily unavailable; retry") on the key-management routes: a failure
 * that is not an answer about the request (the store unreachable, say) is reported as that, so a client retries,
 * instead of the generic ERR_5000. The error handler has logged the cause already.
 */
export const keyServiceErrors = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.error !== undefined && !(c.error instanceof ApiError)) {
    c.res = errorResponse(c, new ApiError('ERR_5005', 'The key service is temporarily unavailable; retry.'));
  }
});
