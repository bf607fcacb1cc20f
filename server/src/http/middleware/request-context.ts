import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { redactCardNumbers } from '../../core/vault/card-number-guard';
import { lazyChildLogger, type Logger } from '../../logger';
import { setAnswerHeader } from '../answer-headers';
import type { AppEnv } from '../env';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (x-request-id, echoed back) and a child logger, and logs one line per request:
 * method, path (never the query string, which may carry a client_secret; card-number-shaped runs redacted), status
 * and duration. Bodies are never logged.
 */
export function requestContext(logger: Logger) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const log = lazyChildLogger(logger, { request_id: requestId });
    c.set('requestId', requestId);
    c.set('logger', log);
    const started = performance.now();
    await next();
    setAnswerHeader(c, 'x-request-id', requestId);
    log.info(
      { method: c.req.method, path: redactCardNumbers(c.req.path), status: c.res.status, duration_ms: Math.round(performance.now() - started) },
      'request',
    );
  });
}
