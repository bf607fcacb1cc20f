// The baseline of `npm run bench`: a bare Hono POST handler on @hono/node-server (parse the JSON body, answer a
// small JSON object), the HTTP stack Rail runs on with none of Rail's work. Plain JavaScript, so it starts and runs
// as fast as it can. Usage: node bench/bare-server.mjs PORT (prints "ready" when listening).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
let n = 0;
app.post('/payments', async (c) => {
  const body = await c.req.json();
  n += 1;
  return c.json({ payment_id: `pay_${n}`, status: 'requires_payment_method', amount: body.amount ?? 0 }, 200);
});
app.post('/payments/:id/confirm', async (c) => {
  await c.req.json();
  return c.json({ payment_id: c.req.param('id'), status: 'succeeded' }, 200);
});
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2]) }, () => console.log('ready'));
