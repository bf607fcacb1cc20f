/**
 * The merchant of the e2e tests: its own origin, serving fixture pages and a tiny backend that creates payments
 * with the secret key, as a real merchant server would. It imports nothing from the product.
 * It listens twice: E2E.merchantUrl (the shop) and E2E.rogueUrl (another origin, for the rogue-iframe specs).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { E2E } from './env';

const FIXTURES = join(import.meta.dirname, 'fixtures');

async function api(path: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  const response = await fetch(`${E2E.baseUrl}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', 'api-key': E2E.secretKey },
  });
  return { status: response.status, body: await response.text() };
}

async function handle(req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
  const url = new URL(req.url ?? '/', base);
  if (url.pathname === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'POST' && url.pathname === '/create-payment') {
    let body = '';
    for await (const chunk of req) body += chunk;
    const created = await api('/payments', { method: 'POST', body: body || JSON.stringify({ amount: 10000, currency: 'INR' }) });
    res.writeHead(created.status, { 'content-type': 'application/json' }).end(created.body);
    return;
  }
  // The merchant backend reads a payment with its secret key (the return page uses it after a redirect).
  const read = /^\/payment\/(pay_\w+)$/.exec(url.pathname);
  if (req.method === 'GET' && read) {
    const payment = await api(`/payments/${read[1]}`);
    res.writeHead(payment.status, { 'content-type': 'application/json' }).end(payment.body);
    return;
  }
  // A font stylesheet as a font service serves it (CORS), with one face per digit: the fonts spec checks that the
  // frame loads them all before anything is typed, and takes none of the stylesheet's other rules.
  if (req.method === 'GET' && url.pathname === '/fonts/spy.css') {
    const digits = [...'0123456789'].map((digit) => `@font-face { font-family: 'Spy'; src: url(digit-${digit}.woff2) format('woff2'); unicode-range: U+3${digit}; }`);
    const css = [...digits, "@font-face { font-family: 'Spy'; src: url(cyrillic.woff2); unicode-range: U+0400-045F; }", '.Input { outline: 7px solid rgb(255, 0, 0); }'].join('\n');
    res.writeHead(200, { 'content-type': 'text/css', 'access-control-allow-origin': '*' }).end(css);
    return;
  }
  if (req.method === 'GET' && url.pathname.startsWith('/fonts/')) {
    res.writeHead(404, { 'access-control-allow-origin': '*' }).end();
    return;
  }
  // The npm loader as a merchant's bundle would ship it (the built package, npm run build).
  if (req.method === 'GET' && url.pathname === '/loader.js') {
    const loader = await readFile(join(import.meta.dirname, '..', 'loader', 'dist', 'index.js'), 'utf8');
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(loader);
    return;
  }
  const name = url.pathname === '/' ? 'checkout.html' : url.pathname.slice(1);
  if (!/^[a-z0-9-]+\.html$/.test(name)) {
    res.writeHead(404).end();
    return;
  }
  const html = (await readFile(join(FIXTURES, name), 'utf8'))
    .replaceAll('__RAIL_JS_URL__', E2E.jsUrl)
    .replaceAll('__RAIL_PUBLISHABLE_KEY__', E2E.publishableKey)
    .replaceAll('__ROGUE_URL__', E2E.rogueUrl)
    .replaceAll('__MERCHANT_URL__', E2E.merchantUrl);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

function listen(port: number, base: string) {
  const server = createServer((req, res) => {
    handle(req, res, base).catch((error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)));
  });
  server.listen(port, '127.0.0.1');
  return server;
}

const servers = [listen(E2E.merchantPort, E2E.merchantUrl), listen(E2E.roguePort, E2E.rogueUrl)];
process.on('SIGTERM', () => {
  let open = servers.length;
  for (const server of servers) server.close(() => --open === 0 && process.exit(0));
});
