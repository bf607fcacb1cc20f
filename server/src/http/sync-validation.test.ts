import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import type { AppEnv } from './env';
import { validationHook } from './error-handler';
import { validateRequestsSynchronously } from './sync-validation';

function appWith(body: z.ZodType, query: z.ZodType) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  validateRequestsSynchronously(app);
  app.onError((error, c) => c.json({ error: String(error) }, 400));
  app.openapi(
    createRoute({
      method: 'post',
      path: '/things',
      request: { query: query as never, body: { required: true, content: { 'application/json': { schema: body } } } },
      responses: { 200: { description: 'the thing' } },
    }),
    (c) => c.json({ body: c.req.valid('json' as never) as unknown, query: c.req.valid('query' as never) as unknown }, 200),
  );
  return app;
}

const post = (app: OpenAPIHono<AppEnv>, body: unknown, query = '') =>
  app.request(`/things${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('validateRequestsSynchronously', () => {
  test("a route's body and query are parsed by zod's synchronous parse, with the same answers", async () => {
    const body = z.strictObject({ amount: z.int().min(0), note: z.string().optional() });
    const query = z.strictObject({ expand: z.enum(['all']).optional() });
    const bodyParse = vi.spyOn(body, 'safeParse');
    const queryParse = vi.spyOn(query, 'safeParse');
    const app = appWith(body, query);

    const ok = await post(app, { amount: 5 }, '?expand=all');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ body: { amount: 5 }, query: { expand: 'all' } });
    expect(bodyParse).toHaveBeenCalledTimes(1);
    expect(queryParse).toHaveBeenCalledTimes(1);

    const unknownField = await post(app, { amount: 5, colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(await unknownField.text()).toContain('colour');
    const negative = await post(app, { amount: -1 });
    expect(negative.status).toBe(400);
    expect(await negative.text()).toContain('amount');
  });

  test('a schema with an asynchronous check is still parsed, asynchronously', async () => {
    const seen: string[] = [];
    const body = z.strictObject({
      name: z.string().refine(async (name) => {
        seen.push(name);
        await new Promise((resolveLater) => setTimeout(resolveLater, 1));
        return name !== 'taken';
      }, 'name is taken'),
    });
    const app = appWith(body, z.strictObject({}));
    expect((await post(app, { name: 'free' })).status).toBe(200);
    const taken = await post(app, { name: 'taken' });
    expect(taken.status).toBe(400);
    expect(await taken.text()).toContain('name is taken');
    expect(seen).toContain('taken');
  });
});
