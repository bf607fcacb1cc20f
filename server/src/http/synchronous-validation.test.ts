/**
 * validateSynchronously (http/synchronous-validation.ts): a route's request schemas answer through safeParse, and a
 * schema with an asynchronous check still answers through zod's asynchronous path, with the same results.
 */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { describe, expect, test, vi } from 'vitest';
import { validateSynchronously } from './synchronous-validation';

function appWith(body: z.ZodType, query: z.ZodType) {
  const app = validateSynchronously(
    new OpenAPIHono({ defaultHook: (result, c) => (result.success ? undefined : c.json({ invalid: result.error.issues.map((issue) => issue.path.join('.')) }, 400)) }),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/things',
      request: { query, body: { required: true, content: { 'application/json': { schema: body } } } },
      responses: { 200: { description: 'ok', content: { 'application/json': { schema: z.object({ name: z.string() }) } } } },
    }),
    (c) => c.json({ name: c.req.valid('json').name }, 200),
  );
  return app;
}

const post = (app: OpenAPIHono, path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('validateSynchronously', () => {
  test('validates the body and the query with safeParse, answering as before', async () => {
    const body = z.object({ name: z.string().min(2) });
    const query = z.object({ page: z.string().optional() });
    const safeParse = vi.spyOn(body, 'safeParse');
    const app = appWith(body, query);

    const valid = await post(app, '/things?page=2', { name: 'ok' });
    expect(valid.status).toBe(200);
    expect(await valid.json()).toEqual({ name: 'ok' });
    const invalid = await post(app, '/things', { name: 'x' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ invalid: ['name'] });
    expect(safeParse).toHaveBeenCalledTimes(2);
  });

  test('leaves a schema with an asynchronous check to the asynchronous path', async () => {
    const body = z.object({ name: z.string() }).refine(async (value) => value.name !== 'taken', { path: ['name'] });
    const app = appWith(body, z.object({}));

    expect((await post(app, '/things', { name: 'free' })).status).toBe(200);
    const taken = await post(app, '/things', { name: 'taken' });
    expect(taken.status).toBe(400);
    expect(await taken.json()).toEqual({ invalid: ['name'] });
  });
});
