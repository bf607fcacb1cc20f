import type { ZodType } from 'zod';
import { ApiErrorBody } from '../../../protocol/errors';
import { RATE_LIMITED_ROUTES } from './rate-limit';

const ERROR_CONTENT = { 'application/json': { schema: ApiErrorBody.meta({ id: 'Error' }) } } as const;

/** Error responses every authenticated JSON route documents (the catalog is in docs/errors.md). */
export const ERROR_RESPONSES = {
  400: { description: 'Invalid request (ERR_2xxx, ERR_4xxx)', content: ERROR_CONTENT },
  401: { description: 'Missing or invalid API key (ERR_1001, ERR_1002, ERR_1003)', content: ERROR_CONTENT },
  404: { description: 'Not found (ERR_4001, ERR_2006)', content: ERROR_CONTENT },
  409: { description: 'Conflict (ERR_4002)', content: ERROR_CONTENT },
  422: { description: 'Unprocessable (ERR_1007, ERR_3010)', content: ERROR_CONTENT },
} as const;

export const SECURITY: Record<string, string[]>[] = [{ ApiKeyAuth: [] }, { BearerAuth: [] }];

/** The operator-session routes under /v1 (`Authorization: Bearer ops_...` or the rail_session cookie; docs/keys.md). */
export const SESSION_SECURITY: Record<string, string[]>[] = [{ SessionAuth: [] }];

/** A JSON response body of `schema`, as createRoute's responses take it. */
export const jsonContent = <T extends ZodType>(schema: T) => ({ content: { 'application/json': { schema } } }) as const;

/** The 429 answer (docs/security.md): ERR_4290 with Retry-After. */
const TOO_MANY_REQUESTS = {
  description: 'Too many requests (ERR_4290): retry after the Retry-After header',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
} as const;

interface OperationObject {
  security?: unknown[];
  responses?: Record<string, unknown>;
}

/** RATE_LIMITED_ROUTES as patterns over the document's paths (`{param}` is a segment, as `:param` is to Hono). */
const RATE_LIMITED_PATTERNS = RATE_LIMITED_ROUTES.map(({ method, path }) => ({
  method: method.toLowerCase(),
  pattern: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`),
}));

/**
 * Adds the 429 answer to every operation of `document` that can give it: every operation that authenticates a key
 * or a session (`security`; the failed_authentication limit counts refused credentials on all of them, and the
 * core's own ERR_4290 come from such routes), and every operation a rate-limited surface covers (RATE_LIMITED_ROUTES,
 * matched as Hono matches them). One place, so a route added later documents it without writing it.
 */
export function withTooManyRequests<Document extends { paths?: object }>(document: Document): Document {
  for (const [path, operations] of Object.entries(document.paths ?? {}) as [string, Record<string, unknown>][]) {
    for (const [method, value] of Object.entries(operations)) {
      const operation = value as OperationObject;
      if (operation.responses === undefined) continue;
      const authenticates = (operation.security?.length ?? 0) > 0;
      const limited = RATE_LIMITED_PATTERNS.some((row) => (row.method === 'all' || row.method === method) && row.pattern.test(path));
      if (authenticates || limited) operation.responses['429'] = TOO_MANY_REQUESTS;
    }
  }
  return document;
}
