import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { CoreDeps } from '../../core/shared/deps';
import { beginIdempotentRequest, finishIdempotentRequest, IDEMPOTENCY_HEADER, parseIdempotencyKey, requestFingerprint } from '../../core/auth/idempotency';
import { derivedIds } from '../../kernel/ids';
import type { StoredResponse } from '../../storage/idempotency/records';
import type { AppEnv } from '../env';
import { requestBodyBytes, requestBodyJson } from '../request-body';
import { isJsonContentType } from './json-body';

/** Set on a replayed response (Stripe's name). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Response headers kept with a stored response; the rest (CORS, x-request-id) belong to the replaying request. */
const STORED_HEADERS = ['content-type', 'allow', 'retry-after'];

/**
 * The path with its query as `new URL(url)` gives them (pathname + search), read from the URL's text: c.req.url is
 * always a serialized http(s) URL (the adapter's or a Web Request's href), whose path begins at the first `/` after
 * the authority and whose fragment, if any, at the first `#`. An empty query (`?` alone) is no search, as in URL.
 */
export function pathWithQuery(url: string): string {
  const authority = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  const start = authority === -1 ? -1 : url.indexOf('/', authority);
  if (start === -1) {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  }
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  const query = url.indexOf('?', start);
  return query !== -1 && query === end - 1 ? url.slice(start, query) : url.slice(start, end);
}

async function fingerprintOf(c: Context<AppEnv>): Promise<{ path: string; fingerprint: string }> {
  const path = pathWithQuery(c.req.url);
  // The bytes first (not text) so a later multipart or binary reader sees the exact bytes through Hono's body cache.
  const raw = await requestBodyBytes(c);
  if (isJsonContentType(c.req.header('content-type'))) {
    // Parsed once for this request: parseJsonBody takes the same value.
    const body = await requestBodyJson(c);
    if (body.kind === 'empty') return { path, fingerprint: requestFingerprint(c.req.method, path, { json: {} }) };
    try {
      if (body.kind === 'value') return { path, fingerprint: requestFingerprint(c.req.method, path, { json: body.value }) };
    } catch {
      // nested too deep for the canonical text (RangeError): the raw bytes, and the JSON parser answers ERR_2003.
    }
    // not JSON after all: the raw bytes are the fingerprint, and the JSON parser answers ERR_2005 (stored).
  }
  return { path, fingerprint: requestFingerprint(c.req.method, path, { raw }) };
}

/**
 * Keeps the text of the JSON answer written with c.json by this request's handler or error handler, so that storing
 * it needs no read-back: `response.clone().text()` turns Hono's light response into a Web stream and its tee, which
 * the Node adapter then writes through the stream path (most of what the key cost per call). The text is returned
 * only if that response is still the one to send; anything else is read back as before.
 */
function captureJsonText(c: Context<AppEnv>): () => string | undefined {
  let captured: { response: Response; text: string } | undefined;
  const body = c.body as (data: string, arg?: unknown, headers?: Record<string, string>) => Response;
  // The same as Hono's c.json (JSON.stringify, then the default content type under any headers given).
  c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string>) => {
    const text = JSON.stringify(object);
    const response = body(text, arg, { 'Content-Type': 'application/json', ...headers });
    captured = { response, text };
    return response;
  }) as typeof c.json;
  return () => (captured !== undefined && captured.response === c.res ? captured.text : undefined);
}

/**
 * Runs the rest of the chain under the Idempotency-Key protocol (core/auth/idempotency.ts). Needs `c.var.auth`: it runs
 * right after authentication, before body parsing and validation, so a stored answer can be a validation error
 * too (the same request always fails the same way). Without the header, or on other methods than POST, it only
 * calls `next`.
 */
export async function runIdempotent(deps: CoreDeps, c: Context<AppEnv>, next: Next): Promise<Response | void> {
  if (c.req.method !== 'POST') return next();
  const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
  if (key === undefined) return next();
  const auth = c.get('auth');
  const scope = { accountId: auth.accountId, mode: auth.mode, keyKind: auth.keyKind };
  const { path, fingerprint } = await fingerprintOf(c);
  const decision = await beginIdempotentRequest(deps, scope, key, { method: c.req.method, path, fingerprint });
  if (decision.kind === 'replay') {
    const { status, headers, body } = decision.response;
    return new Response(body, { status, headers: { [REPLAYED_HEADER]: 'true', ...headers } });
  }
  const jsonText = captureJsonText(c);
  try {
    // Ids of this execution are derived from the key and the request, so a re-run after a crash finds what the
    // first run created (kernel/ids.ts) instead of creating it again. Routes hand them to the core (env.ts coreDeps).
    const seed = `${scope.accountId}|${scope.mode}|${scope.keyKind}|${key}|${fingerprint}`;
    c.set('derivedIds', derivedIds(seed, deps.ids, decision.idsTime, decision.idsScheme));
    await next();
  } catch (error) {
    // The release is a write after the claim: the sync it waits for covers the claim too.
    await finishIdempotentRequest(deps, scope, key, decision.claimToken, { status: 500, headers: {}, body: '' }).catch(() => undefined);
    throw error;
  }
  const response = c.res;
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const stored: StoredResponse = { status: response.status, headers, body: jsonText() ?? (await response.clone().text()) };
  // Nothing is answered before the claim is durable (the operation's own commit has usually covered it already). A
  // claim that never became durable fails the request (500), as its insert failing did before: a retry then runs
  // with the same derived ids and finds what this run created.
  await decision.claimDurable;
  try {
    // c.error: the error the error handler answered, if one did (Hono's compose sets it).
    await finishIdempotentRequest(deps, scope, key, decision.claimToken, stored, c.error);
  } catch (error) {
    // The operation's own outcome stands; the claim stays in flight until its lease runs out.
    c.get('logger').warn({ err: error }, 'could not store the idempotent response');
  }
}

/** The same as a standalone middleware, for routes that authenticate some other way (sets c.var.auth first). */
export function idempotency(deps: CoreDeps) {
  return createMiddleware<AppEnv>((c, next) => runIdempotent(deps, c, next));
}
