import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, test } from 'vitest';
import type { AppEnv } from './env';
import { compareRoutePaths, routeInOrder } from './route-order';

describe('routeInOrder', () => {
  test('a literal route registered after a parameter route of another family is still reached', async () => {
    const app = new OpenAPIHono<AppEnv>();
    const seen: string[] = [];
    routeInOrder(app, (routes) => {
      routes.get('/customers/:customer_id', (c) => c.text(`customer ${c.req.param('customer_id')}`));
      routes.use('/customers/*', async (_c, next) => {
        seen.push('middleware');
        await next();
      });
      routes.get('/customers/payment_methods', (c) => c.text('stored methods'));
      routes.post('/payments/:payment_id', (c) => c.text('update'));
      routes.post('/payments/session_tokens', (c) => c.text('session tokens'));
    });
    expect(await (await app.request('/customers/payment_methods')).text()).toBe('stored methods');
    expect(await (await app.request('/customers/cus_1')).text()).toBe('customer cus_1');
    expect(await (await app.request('/payments/session_tokens', { method: 'POST' })).text()).toBe('session tokens');
    expect(await (await app.request('/payments/pay_1', { method: 'POST' })).text()).toBe('update');
    // Middleware recorded after a route still runs before every route of its path.
    expect(seen).toEqual(['middleware', 'middleware']);
  });

  test('the order: literal, then parameter, then wildcard, segment by segment; a total order', () => {
    const paths = ['/simulator/*', '/payments/{payment_id}/confirm', '/payments/{payment_id}', '/payments/list', '/payments', '/customers/:id'];
    const sorted = [...paths].sort(compareRoutePaths);
    expect(sorted.indexOf('/payments/list')).toBeLessThan(sorted.indexOf('/payments/{payment_id}'));
    expect(sorted.indexOf('/payments')).toBeLessThan(sorted.indexOf('/payments/list'));
    expect(sorted.indexOf('/customers/:id')).toBeLessThan(sorted.indexOf('/simulator/*'));
    for (const a of paths) {
      expect(compareRoutePaths(a, a)).toBe(0);
      for (const b of paths) expect(Math.sign(compareRoutePaths(a, b)) + Math.sign(compareRoutePaths(b, a))).toBe(0);
    }
  });
});
