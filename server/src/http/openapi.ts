import type { ZodType } from 'zod';
import { ApiErrorBody } from '../../../protocol/errors';

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
