/**
 * The one translation point from failures to the wire error envelope `{"error": {type, message, code,
 * field_name?}}`: ApiError, zod validation results (defaultHook), Hono's own HTTP exceptions, unknown routes and
 * methods, and unexpected errors (logged, answered ERR_5000 without detail).
 */
import type { Context, Hono, Env, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { ERROR_CATALOG, type ApiErrorBody, type ErrorCode } from '../../../protocol/errors';
import { ApiError } from '../core/shared/errors';
import { looksLikeCardNumber, redactCardNumbers } from '../core/vault/card-number-guard';
import type { Logger, RequestLogger } from '../logger';
import { valueAt } from '../kernel/value-at';

export function errorBody(code: ErrorCode, message: string, fieldName?: string): ApiErrorBody {
  const error: ApiErrorBody['error'] = { type: ERROR_CATALOG[code].type, message, code };
  if (fieldName !== undefined) error.field_name = fieldName;
  return { error };
}

export function errorResponse(c: Context, error: ApiError): Response {
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json(errorBody(error.code, error.message, error.fieldName), ERROR_CATALOG[error.code].status as ContentfulStatusCode);
}

/** Field path as clients name it: `metadata.key`, `order_details[0].amount`. Digit runs that could be a card number are masked. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const name = String(segment);
      out += `${out === '' ? '' : '.'}${looksLikeCardNumber(name) ? '[redacted]' : name}`;
    }
  }
  return out;
}

/** Zod's message, shortened for enums with many values (currencies, countries). */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value' && issue.values.length > 8) return 'not one of the accepted values (see /openapi.json)';
  return issue.message;
}

type ValidationTarget = 'json' | 'query' | 'param' | 'header' | 'cookie' | 'form';

/**
 * Maps zod issues to one ApiError. Order: a body that is not an object (ERR_2005), an unknown field (ERR_2004),
 * a missing required field (ERR_2001), anything else (ERR_2003). Zod issues carry no input values (reportInput
 * stays off), so messages never echo what was sent.
 */
export function validationError(issues: readonly z.core.$ZodIssue[], data: unknown, target: ValidationTarget): ApiError {
  const where = target === 'json' ? 'body field' : target === 'query' ? 'query parameter' : target === 'param' ? 'path parameter' : target === 'form' ? 'form field' : target;
  const rootType = issues.find((issue) => issue.path.length === 0 && issue.code === 'invalid_type');
  if (rootType && target === 'json') return new ApiError('ERR_2005', 'The request body must be a JSON object.');
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown && unknown.code === 'unrecognized_keys') {
    const field = fieldPath([...unknown.path, unknown.keys[0] ?? '']);
    return new ApiError('ERR_2004', `Unknown ${where}: ${field}.`, { fieldName: field });
  }
  const missing = issues.find(
    (issue) =>
      issue.path.length > 0 &&
      (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') &&
      valueAt(data, issue.path) === undefined,
  );
  if (missing) {
    const field = fieldPath(missing.path);
    return new ApiError('ERR_2001', `Missing required ${where}: ${field}.`, { fieldName: field });
  }
  const first = issues[0];
  const field = first ? fieldPath(first.path) : '';
  return new ApiError('ERR_2003', `Invalid ${where} ${field || 'value'}: ${first ? issueMessage(first) : 'invalid value'}.`, {
    ...(field ? { fieldName: field } : {}),
  });
}

/** OpenAPIHono defaultHook: every failed zod validation becomes an ApiError, thrown to onError. */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; data?: unknown; target: ValidationTarget },
): void {
  if (!result.success) throw validationError(result.error.issues, result.data, result.target);
}

const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'ERR_2005',
  404: 'ERR_2006',
  405: 'ERR_2007',
  413: 'ERR_2009',
  415: 'ERR_2008',
};

/** True for the errors a client causes by going away mid-request. */
export function isClientGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || (error instanceof Error && error.message === 'aborted');
}

export function createErrorHandler(logger: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    if (error instanceof HTTPException) {
      const code = HTTP_EXCEPTION_CODES[error.status];
      if (code !== undefined) {
        const message = code === 'ERR_2008' ? 'Send JSON bodies with Content-Type: application/json.' : ERROR_CATALOG[code].when;
        return errorResponse(c, new ApiError(code, message));
      }
    }
    const log = (c.get('logger') as RequestLogger | undefined) ?? logger;
    if (isClientGone(error)) {
      // The client went away while its body was being read: nobody reads this answer, and nothing was done.
      log.info({ reason: (error as { code?: string }).code ?? error.message }, 'client disconnected');
      return errorResponse(c, new ApiError('ERR_2012', 'The request body did not arrive; the client disconnected.'));
    }
    log.error({ err: error }, 'unhandled error');
    return errorResponse(c, new ApiError('ERR_5000', 'An unexpected error occurred. Retrieve the resource to see its state before retrying.'));
  };
}

function routeMatches(pattern: string, path: string): boolean {
  const source = pattern
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`).test(path);
}

/** Unknown path: ERR_2006 (404); known path, other method: ERR_2007 (405) with an Allow header. */
export function createNotFoundHandler<E extends Env>(app: Hono<E>): NotFoundHandler<E> {
  return (c) => {
    const methods = new Set<string>();
    for (const route of app.routes) {
      if (route.method === 'ALL') continue;
      if (routeMatches(route.path, c.req.path)) methods.add(route.method);
    }
    if (methods.size > 0) {
      if (methods.has('GET')) methods.add('HEAD');
      c.header('Allow', [...methods].sort().join(', '));
      return errorResponse(c, new ApiError('ERR_2007', `${c.req.method} is not allowed on ${redactCardNumbers(c.req.path)}.`));
    }
    return errorResponse(c, new ApiError('ERR_2006', `No route matches ${c.req.method} ${redactCardNumbers(c.req.path)}.`));
  };
}
