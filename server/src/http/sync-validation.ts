/**
 * @hono/zod-openapi validates a route's query, params, headers and body through @hono/zod-validator, which calls
 * `safeParseAsync`. zod 4 compiles an object schema into one generated function, but uses it only in a synchronous
 * parse: the asynchronous one walks the schema key by key, with a promise check at each. Rail's request schemas
 * are wide (a payment's create and confirm bodies have about 70 optional fields each), so that walk was a
 * payment call's largest piece of validation: 14 against 4 us for a create body (docs/benchmarks-reading.md,
 * twelfth session). Every route's request schemas therefore parse synchronously behind the same method, and fall
 * back to the asynchronous parse only when a schema holds an asynchronous check, as zod's sync parse then says.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { AppEnv } from './env';

type RouteConfig = Parameters<OpenAPIHono<AppEnv>['openapi']>[0];

const synchronous = new WeakSet<z.ZodType>();

function parseSynchronously(schema: z.ZodType): void {
  if (synchronous.has(schema)) return;
  synchronous.add(schema);
  const parseAsync = schema.safeParseAsync.bind(schema);
  // A schema built on first use (protocol/lazy-schema.ts) parses as the schema it built, without the step through it.
  let parser: z.ZodType | undefined;
  schema.safeParseAsync = async (data, params) => {
    parser ??= schema instanceof z.ZodLazy ? (schema._zod.innerType as z.ZodType) : schema;
    try {
      return parser.safeParse(data, params);
    } catch (error) {
      if (error instanceof z.core.$ZodAsyncError) return parseAsync(data, params);
      throw error;
    }
  };
}

function requestSchemas(route: RouteConfig): unknown[] {
  const request = route.request;
  if (request === undefined) return [];
  const bodies = Object.values(request.body?.content ?? {}).map((media) => (media as { schema?: unknown } | undefined)?.schema);
  return [request.query, request.params, request.headers, request.cookies, ...bodies];
}

/** Makes every route registered with `app.openapi` from now on validate its request synchronously (above). */
export function validateRequestsSynchronously(app: OpenAPIHono<AppEnv>): void {
  const register = app.openapi;
  app.openapi = ((route, handler, hook) => {
    for (const schema of requestSchemas(route)) {
      if (schema instanceof z.ZodType) parseSynchronously(schema);
    }
    return register(route, handler, hook);
  }) as typeof app.openapi;
}
