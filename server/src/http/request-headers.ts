/**
 * Answers `c.req.header(name)` from Node's own `rawHeaders`. Hono reads a request header from the Web Request's
 * Headers, which @hono/node-server builds for each request from rawHeaders (undici's Headers: every field validated
 * and kept sorted), and Rail reads a few headers of every call (x-request-id, the key, the content type and length):
 * that build was some 2-3 % of the main thread under load (docs/benchmarks-reading.md, twelfth session). The answer
 * is Headers.get's: the name is case-insensitive and a repeated field's values are joined with ", " (Node's parsed
 * `headers` object would keep only the first Authorization, and join others otherwise). All headers at once
 * (`c.req.header()`) and anything that reads `c.req.raw.headers` still go through the Web Headers.
 */
import type { IncomingMessage } from 'node:http';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './env';

/** The value Headers.get(name) would give for the request whose rawHeaders are `raw` (name/value pairs). */
export function rawHeaderValue(raw: readonly string[], name: string): string | undefined {
  const wanted = name.toLowerCase();
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length !== wanted.length || field.toLowerCase() !== wanted) continue;
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** Runs first: the request's `c.req.header(name)` reads rawHeaders (above) when it came through Node's server. */
export const readHeadersFromNode = createMiddleware<AppEnv>(async (c, next) => {
  const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.rawHeaders;
  if (raw !== undefined) {
    const request = c.req;
    const allHeaders = request.header.bind(request);
    request.header = ((name?: string) => (name ? rawHeaderValue(raw, name) : allHeaders())) as typeof request.header;
  }
  await next();
});
