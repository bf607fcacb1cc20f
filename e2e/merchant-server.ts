/**
 * The merchant of the e2e tests: its own origin, serving fixture pages and a tiny backend that creates payments
 * with the secret key, as a real merchant server would. It imports nothing from the product.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { E2E } from './env';

const FIXTURES = join(import.meta.dirname, 'fixtures');

async function createPayment(body: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${E2E.baseUrl}/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': E2E.secretKey },
    body: body || JSON.stringify({ amount: 10000, currency: 'INR' }),
  });
  return { status: response.status, body: await response.text() };
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', E2E.merchantUrl);
  try {
    if (url.pathname === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method === 'POST' && url.pathname === '/create-payment') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const created = await createPayment(body);
      res.writeHead(created.status, { 'content-type': 'application/json' }).end(created.body);
      return;
    }
    const name = url.pathname === '/' ? 'checkout.html' : url.pathname.slice(1);
    if (!/^[a-z0-9-]+\.html$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    const html = (await readFile(join(FIXTURES, name), 'utf8'))
      .replaceAll('__RAIL_JS_URL__', E2E.jsUrl)
      .replaceAll('__RAIL_PUBLISHABLE_KEY__', E2E.publishableKey);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
  }
});

server.listen(E2E.merchantPort, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
