import type { Context } from 'hono';

/**
 * Sets a header on the answer the route has made (after `await next()`). Hono's own ways each rebuild that answer
 * around its body as a Web stream (Response.body): c.header() once the answer exists, and any header put on c.res
 * before the route ran (the placeholder that Hono's cors middleware creates), which Hono merges by wrapping the
 * route's answer again. The Node adapter then writes it through its stream path instead of sending the string it
 * holds. The answer's own headers are mutable and enough; an answer with immutable headers (a fetched Response)
 * takes Hono's copy.
 */
export function setAnswerHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}
