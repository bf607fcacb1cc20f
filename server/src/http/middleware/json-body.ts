import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../core/shared/errors';
import { containsRawCardNumber } from '../../core/vault/card-number-guard';
import type { AppEnv } from '../env';
import { fieldPath } from '../error-handler';
import { requestBodyJson } from '../request-body';

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_MEDIA_TYPE.test(contentType.split(';')[0]?.trim() ?? '');
}

/**
 * Deepest nesting of objects and arrays a JSON body may have (the body itself is level 1). Far beyond any field of
 * the spec; it keeps every recursive step after parsing (schema validation, canonical JSON, JSON.stringify into
 * the store) far from the stack's limit, which bodies thousands of levels deep would otherwise reach.
 */
export const JSON_MAX_DEPTH = 64;

/**
 * A string with a lone UTF-16 surrogate (JSON `"\ud800"`) is not text any store keeps as sent: SQLite keeps it,
 * PostgreSQL's UTF-8 turns it into U+FFFD, so a read would answer something else than the create did.
 */
export const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * One iterative walk of a parsed body, before anything recursive touches it: the first string (value or key)
 * holding U+0000 or a lone surrogate, which no store column keeps as sent, and the first value nested deeper than
 * JSON_MAX_DEPTH. Each answer names the field (the dotted path to the string, or to the object whose key it is;
 * the top-level field that holds the deep value).
 */
function inspectBody(root: unknown): { nul?: string; loneSurrogate?: string; tooDeep?: string } {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, path, depth } = item;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { nul: path };
      if (!isWellFormed(value)) return { loneSurrogate: path };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > JSON_MAX_DEPTH) return { tooDeep: path.split(/[.[]/)[0] ?? path };
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes('\u0000')) return { nul: path };
      if (!isWellFormed(key)) return { loneSurrogate: path };
      pending.push({ value: inner, path: path === '' ? key : `${path}.${key}`, depth: depth + 1 });
    }
  }
  return {};
}

/**
 * Refuses a URL whose path or query holds an encoded NUL (%00): no id or parameter can contain one, and
 * PostgreSQL text cannot even be compared with it. Runs before routing, for every request.
 */
export const rejectNulInUrl = createMiddleware<AppEnv>(async (c, next) => {
  if (/%00/i.test(c.req.url)) {
    throw new ApiError('ERR_2003', 'The URL may not contain the NUL character (%00).');
  }
  await next();
});

/**
 * Parses a JSON body once, before validation: malformed JSON or a non-object answers ERR_2005, an empty body is
 * `{}` (clients confirm with an empty body). The parsed value is handed to the zod validator through Hono's
 * body cache. Bodies with another content type are left to the validator (ERR_2008).
 */
/**
 * The request's JSON body as an object (an empty body is `{}`), parsed once per request (the Idempotency-Key
 * fingerprint may have parsed it already); malformed JSON or a non-object is ERR_2005. Undefined for a body of another
 * content type.
 */
async function jsonObjectBody(c: Context<AppEnv>): Promise<{ value: object; empty: boolean } | undefined> {
  if (!isJsonContentType(c.req.header('content-type'))) return undefined;
  const body = await requestBodyJson(c);
  if (body.kind === 'invalid') throw new ApiError('ERR_2005', 'The request body is not valid JSON.');
  const value = body.kind === 'value' ? body.value : {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('ERR_2005', 'The request body must be a JSON object.');
  }
  return { value, empty: body.kind === 'empty' };
}

export const parseJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const body = await jsonObjectBody(c);
  if (body !== undefined) {
    const { value } = body;
    const found = inspectBody(value);
    if (found.tooDeep !== undefined) {
      throw new ApiError('ERR_2003', `JSON values may nest at most ${JSON_MAX_DEPTH} levels deep.`, { fieldName: found.tooDeep || 'body' });
    }
    if (found.nul !== undefined) {
      throw new ApiError('ERR_2003', 'Strings may not contain the NUL character (U+0000).', { fieldName: found.nul || 'body' });
    }
    if (found.loneSurrogate !== undefined) {
      throw new ApiError('ERR_2003', 'Strings must be well-formed Unicode: a UTF-16 surrogate (\\ud800-\\udfff) is only valid as half of a pair.', {
        fieldName: found.loneSurrogate || 'body',
      });
    }
    const parsed = Promise.resolve(value);
    c.req.bodyCache.json = parsed;
    // Hono's c.req.json() (used by the validator and rejectRawCardNumbers) parses the cached text again at every
    // call, not the json cache: it answers this value instead (an empty body is `{}` there too). Its readers only
    // read it. The text of an empty body reads as `{}` too, as it did when c.req.json() parsed it.
    c.req.json = (() => parsed) as typeof c.req.json;
    if (body.empty) (c.req.bodyCache as { text?: unknown }).text = Promise.resolve('{}');
  }
  await next();
});

/**
 * Spec rule 7: a raw card number is refused in every mode (ERR_2029), before any other validation, so no
 * schema error can mention it. See core/vault/card-number-guard.ts for what counts as one.
 */
export const rejectRawCardNumbers = createMiddleware<AppEnv>(async (c, next) => {
  if (isJsonContentType(c.req.header('content-type'))) {
    const body = (await c.req.json()) as Record<string, unknown>;
    if ('payment_method_data' in body && containsRawCardNumber(body['payment_method_data'])) {
      throw new ApiError(
        'ERR_2029',
        'Raw card numbers are not accepted. Collect cards in the hosted frame and send payment_method_data.psp_token.',
        { fieldName: 'payment_method_data' },
      );
    }
  }
  await next();
});

/**
 * For the POST operations that take no body (extend an authorization, accept a dispute, rotate a key, ...):
 * api-conventions §4 refuses unknown request fields, and every field is unknown there. A JSON body may be empty or
 * `{}`; a field in it is ERR_2004 naming it, as the validator names one; JSON that is malformed or not an object is
 * ERR_2005. A body of another content type is nothing these routes read, and is ignored as GET and DELETE ignore one.
 */
export const refuseBodyFields = createMiddleware<AppEnv>(async (c, next) => {
  const first = Object.keys((await jsonObjectBody(c))?.value ?? {})[0];
  if (first !== undefined) {
    const field = fieldPath([first]);
    throw new ApiError('ERR_2004', `Unknown body field: ${field}. This operation takes no body.`, { fieldName: field });
  }
  await next();
});
