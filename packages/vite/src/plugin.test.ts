/**
 * rail() in a real vite dev server: the embedded Rail starts with it, the page's import.meta.env carries its
 * publishable key and js_url, the dev endpoint creates a payment whose client secret the server knows, bad bodies
 * get an error envelope, a request another site's page sends is refused, and closing vite stops Rail. `vite build` does not start a server.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { build, createServer, type Plugin, type ViteDevServer } from 'vite';
import { rail } from './index';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rail-vite-test-'));
  await writeFile(join(root, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>');
  await writeFile(
    join(root, 'main.js'),
    'export const config = { key: import.meta.env.VITE_RAIL_PUBLISHABLE_KEY, jsUrl: import.meta.env.VITE_RAIL_JS_URL, endpoint: import.meta.env.VITE_RAIL_PAYMENT_ENDPOINT };\n',
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

describe('rail() under vite dev', () => {
  let vite: ViteDevServer;
  let url: string;
  let jsUrl: string;
  beforeAll(async () => {
    vite = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [rail()], server: { host: '127.0.0.1', port: 18570 } });
    await vite.listen();
    url = (vite.resolvedUrls?.local[0] ?? '').replace(/\/$/, '');
  });

  test('the page gets the publishable key, js_url and endpoint through import.meta.env', async () => {
    const code = await (await fetch(`${url}/main.js`)).text();
    // vite gives the module its import.meta.env object: the plugin's variables are in it.
    const key = /"VITE_RAIL_PUBLISHABLE_KEY": "(rail_open_test_\w+)"/.exec(code)?.[1];
    jsUrl = /"VITE_RAIL_JS_URL": "(http:\/\/127\.0\.0\.1:\d+)"/.exec(code)?.[1] ?? '';
    expect(key).toBeDefined();
    expect(jsUrl).not.toBe('');
    expect(code).toContain('"VITE_RAIL_PAYMENT_ENDPOINT": "/__rail/payment"');
    const runtime = await fetch(`${jsUrl}/v1/`);
    expect(runtime.status).toBe(200);
  });

  const JSON_TYPE = { 'content-type': 'application/json' };
  const PAYMENT = JSON.stringify({ amount: 100, currency: 'INR' });

  test('POST /__rail/payment creates a payment and answers only its id and client secret', async () => {
    const created = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ amount: 2500, currency: 'USD' }) });
    expect(created.status).toBe(200);
    const body = (await created.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['client_secret', 'payment_id']);
    expect(String(body.client_secret)).toMatch(new RegExp(`^${String(body.payment_id)}_secret_`));
    const byDefault = (await (await fetch(`${url}/__rail/payment`, { method: 'POST' })).json()) as Record<string, unknown>;
    expect(byDefault.payment_id).toMatch(/^pay_/);
  });

  test('a bad body gets an error envelope, never a 5xx', async () => {
    const malformed = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: JSON_TYPE, body: '{not json' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: 'invalid_request', code: 'ERR_2005' } });
    const notAnObject = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: JSON_TYPE, body: '[1]' });
    expect(notAnObject.status).toBe(400);
    const refusedByRail = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ amount: -5, currency: 'INR' }) });
    expect(refusedByRail.status).toBe(400);
    expect(await refusedByRail.json()).toMatchObject({ error: { type: 'invalid_request' } });
  });

  test("the page's own origin may POST: Origin of the dev server, Sec-Fetch-Site same-origin", async () => {
    const sameOrigin = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: { ...JSON_TYPE, origin: url, 'sec-fetch-site': 'same-origin' }, body: PAYMENT });
    expect(sameOrigin.status).toBe(200);
  });

  test("another site's page cannot make it create payments: 403 for a foreign Origin or a cross-site fetch", async () => {
    const refusals = [
      { ...JSON_TYPE, origin: 'https://evil.example' },
      // Another port of the same host is another origin (another local dev server).
      { ...JSON_TYPE, origin: url.replace(/:\d+$/, ':1') },
      // Sandboxed frames and file:// pages send Origin: null.
      { ...JSON_TYPE, origin: 'null' },
      { ...JSON_TYPE, 'sec-fetch-site': 'cross-site' },
      { ...JSON_TYPE, 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refusals) {
      const refused = await fetch(`${url}/__rail/payment`, { method: 'POST', headers, body: '{}' });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { type: 'permission_error', code: 'ERR_1009' } });
    }
  });

  test('a body that is not declared JSON gets 415: a cross-site form POST cannot reach the endpoint', async () => {
    const bodies: [type: string | undefined, body: string][] = [
      ['application/x-www-form-urlencoded', 'amount=100&currency=INR'],
      ['multipart/form-data; boundary=x', '--x--'],
      ['text/plain', PAYMENT],
      [undefined, PAYMENT],
    ];
    for (const [type, body] of bodies) {
      const refused = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: type === undefined ? {} : { 'content-type': type }, body: new Blob([body]) });
      expect(refused.status, String(type)).toBe(415);
      expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request', code: 'ERR_2008' } });
    }
    const withCharset = await fetch(`${url}/__rail/payment`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: PAYMENT });
    expect(withCharset.status).toBe(200);
  });

  test('closing vite stops Rail', async () => {
    expect(await refused(`${jsUrl}/health`)).toBe(false);
    await vite.close();
    expect(await refused(`${jsUrl}/health`)).toBe(true);
  });
});

test('vite build neither starts a server nor defines the variables', async () => {
  const outDir = join(root, 'dist');
  const plugin = rail();
  await build({ root, configFile: false, logLevel: 'silent', plugins: [plugin as Plugin], build: { outDir } });
  const { readdir } = await import('node:fs/promises');
  const files = await readdir(join(outDir, 'assets'));
  const code = await readFile(join(outDir, 'assets', files.find((file) => file.endsWith('.js')) ?? ''), 'utf8');
  expect(code).not.toContain('rail_open_test_');
});
