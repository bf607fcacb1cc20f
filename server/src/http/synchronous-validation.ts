import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { z } from 'zod';

/**
 * The request schemas of the API's routes validate synchronously. @hono/zod-openapi validates each part of a
 * request (query, path parameters, body) with zod's safeParseAsync, which costs some 4 µs more per part than
 * safeParse, for the same answer, on a schema without asynchronous checks (none of protocol/'s has one): about
 * 3 % of the server's CPU per payment call on SQLite (docs/benchmarks-reading.md, seventh session). A schema that
 * turns out to need the asynchronous path (zod throws $ZodAsyncError from safeParse) still takes it.
 */
export function validateSynchronously<E extends Env>(app: OpenAPIHono<E>): OpenAPIHono<E> {
  const register = app.openapi.bind(app);
  app.openapi = ((route: RouteConfig, ...rest: unknown[]) => {
    for (const schema of requestSchemas(route)) parseSynchronously(schema);
    return (register as (...args: unknown[]) => unknown)(route, ...rest);
  }) as typeof app.openapi;
  return app;
}

type RouteConfig = Parameters<OpenAPIHono['openapi']>[0];

function requestSchemas(route: RouteConfig): z.ZodType[] {
  const request = route.request;
  if (request === undefined) return [];
  const parts: unknown[] = [request.query, request.params, request.headers, request.cookies];
  for (const content of Object.values(request.body?.content ?? {})) parts.push((content as { schema?: unknown }).schema);
  return parts.filter((part): part is z.ZodType => part instanceof z.ZodType);
}

const synchronous = new WeakSet<z.ZodType>();

function parseSynchronously(schema: z.ZodType): void {
  if (synchronous.has(schema)) return;
  synchronous.add(schema);
  const parseAsynchronously = schema.safeParseAsync.bind(schema);
  schema.safeParseAsync = (data, params) => {
    try {
      return Promise.resolve(schema.safeParse(data, params));
    } catch (error) {
      if (error instanceof z.core.$ZodAsyncError) return parseAsynchronously(data, params);
      throw error;
    }
  };
}
