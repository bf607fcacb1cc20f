import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { createLogger } from '../logger';
import type { RuntimeManifest } from '../../../protocol/runtime-manifest';
import { API_BASE_URL_PLACEHOLDER, createJsApp, frameCsp, readRuntimeManifest } from './js-app';

const ANCESTORS = ['https://shop.example.com', 'http://localhost:*', 'http://127.0.0.1:*'];
const JS_URL = 'https://js.example.com';

function makeDist(): string {
  const dist = mkdtempSync(join(tmpdir(), 'rail-dist-'));
  mkdirSync(join(dist, 'runtime'));
  mkdirSync(join(dist, 'frame', 'assets'), { recursive: true });
  writeFileSync(join(dist, 'runtime', 'rail.js'), `window.Rail={api:"${API_BASE_URL_PLACEHOLDER}"};`);
  writeFileSync(join(dist, 'frame', 'index.html'), '<!doctype html><script type="module" src="/frame/assets/index-abc.js"></script>');
  writeFileSync(join(dist, 'frame', 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(dist, 'frame', 'assets', 'style-abc.css'), 'body{}');
  writeFileSync(join(dist, 'secret.txt'), 'not served');
  return dist;
}

const app = (distDir: string) =>
  createJsApp({ logger: createLogger('silent'), distDir, publicBaseUrl: 'https://api.example.com', publicJsUrl: JS_URL, frameAncestors: ANCESTORS });

async function manifestOf(js: ReturnType<typeof app>): Promise<RuntimeManifest> {
  return (await (await js.request('/v1/manifest.json')).json()) as RuntimeManifest;
}

describe('js listener', () => {
  test('GET /v1/ serves the runtime with the base_url written in, cacheable, with a strong ETag', async () => {
    const js = app(makeDist());
    const response = await js.request('/v1/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const text = await response.text();
    expect(text).toBe('window.Rail={api:"https://api.example.com"};');
    const again = await js.request('/v1/', { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
  });

  test('the manifest names the content-addressed runtime URL and the sha384 integrity of the bytes /v1/ serves', async () => {
    const js = app(makeDist());
    const response = await js.request('/v1/manifest.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const manifest = (await response.json()) as RuntimeManifest;
    const served = new Uint8Array(await (await js.request('/v1/')).arrayBuffer());
    const digest = createHash('sha384').update(served).digest();
    expect(manifest).toEqual({
      runtime: { src: `${JS_URL}/v1/rail.${digest.subarray(0, 8).toString('hex')}.js`, integrity: `sha384-${digest.toString('base64')}` },
    });
    expect(await readRuntimeManifest(js)).toEqual(manifest);
  });

  test('the content-addressed URL serves exactly the /v1/ bytes, immutable, with the same headers', async () => {
    const js = app(makeDist());
    const { src, integrity } = (await manifestOf(js)).runtime;
    const stable = await js.request('/v1/');
    const pinned = await js.request(new URL(src).pathname);
    expect(pinned.status).toBe(200);
    const pinnedBytes = new Uint8Array(await pinned.arrayBuffer());
    expect(pinnedBytes).toEqual(new Uint8Array(await stable.arrayBuffer()));
    expect(integrity).toBe(`sha384-${createHash('sha384').update(pinnedBytes).digest('base64')}`);
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(stable.headers.get('cache-control')).toBe('public, max-age=300');
    for (const header of ['content-type', 'x-content-type-options', 'access-control-allow-origin', 'cross-origin-resource-policy', 'etag']) {
      expect(pinned.headers.get(header), header).toBe(stable.headers.get(header));
    }
    expect(pinned.headers.get('access-control-allow-origin')).toBe('*');
    expect(pinned.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const revalidated = await js.request(new URL(src).pathname, { headers: { 'if-none-match': pinned.headers.get('etag') ?? '' } });
    expect(revalidated.status).toBe(304);
  });

  test('another runtime hash answers 404 ERR_2006 in the error envelope', async () => {
    const js = app(makeDist());
    const current = new URL((await manifestOf(js)).runtime.src).pathname;
    for (const path of ['/v1/rail.0123456789abcdef.js', '/v1/rail.js', current.replace('.js', '0.js')]) {
      expect(path).not.toBe(current);
      const response = await js.request(path);
      expect(response.status, path).toBe(404);
      // A CDN must not keep the miss: during a rolling deployment another instance serves that hash.
      expect(response.headers.get('cache-control'), path).toBe('no-store');
      expect(await response.json(), path).toMatchObject({ error: { code: 'ERR_2006', type: 'invalid_request' } });
    }
  });

  test('the hash follows the served bytes: another base_url is another URL and integrity', async () => {
    const dist = makeDist();
    const other = createJsApp({
      logger: createLogger('silent'),
      distDir: dist,
      publicBaseUrl: 'https://api.other.example',
      publicJsUrl: JS_URL,
      frameAncestors: ANCESTORS,
    });
    const [mine, theirs] = [(await manifestOf(app(dist))).runtime, (await manifestOf(other)).runtime];
    expect(theirs.src).not.toBe(mine.src);
    expect(theirs.integrity).not.toBe(mine.integrity);
    expect((await other.request(new URL(mine.src).pathname)).status).toBe(404);
  });

  test('GET /frame/ serves the frame with its CSP', async () => {
    const response = await app(makeDist()).request('/frame/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "frame-ancestors https://shop.example.com http://localhost:* http://127.0.0.1:*; script-src 'self'; object-src 'none'; base-uri 'none'",
    );
  });

  test('frame assets are immutable and typed; traversal is refused', async () => {
    const js = app(makeDist());
    const asset = await js.request('/frame/assets/index-abc.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await js.request('/frame/assets/style-abc.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of ['/frame/assets/../../secret.txt', '/frame/assets/%2e%2e/%2e%2e/secret.txt', '/frame/assets/missing.js', '/frame/assets/.hidden']) {
      const response = await js.request(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ERR_2006');
    }
  });

  test('a missing build answers 503 ERR_5007 with the envelope', async () => {
    const js = app(mkdtempSync(join(tmpdir(), 'rail-empty-')));
    for (const path of ['/v1/', '/v1/manifest.json', '/v1/rail.0123456789abcdef.js', '/frame/']) {
      const response = await js.request(path);
      expect(response.status, path).toBe(503);
      if (path.startsWith('/v1/')) expect(response.headers.get('cache-control'), path).toBe('no-store');
      expect(await response.json()).toMatchObject({ error: { code: 'ERR_5007', type: 'api_error' } });
    }
  });

  test('a build that appears after startup is picked up', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'rail-late-'));
    const js = app(dist);
    expect((await js.request('/v1/')).status).toBe(503);
    mkdirSync(join(dist, 'runtime'));
    writeFileSync(join(dist, 'runtime', 'rail.js'), 'ok');
    expect((await js.request('/v1/')).status).toBe(200);
    expect((await js.request(new URL((await manifestOf(js)).runtime.src).pathname)).status).toBe(200);
  });

  test('/health, unknown paths and wrong methods', async () => {
    const js = app(makeDist());
    expect(await (await js.request('/health')).json()).toEqual({ status: 'ok' });
    expect((await js.request('/nope')).status).toBe(404);
    const post = await js.request('/v1/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(await post.json()).toMatchObject({ error: { code: 'ERR_2007' } });
  });

  test('frameCsp with no ancestors forbids framing', () => {
    expect(frameCsp([])).toContain("frame-ancestors 'none'");
  });
});

describe('js listener: compressed bytes, negotiated on Accept-Encoding', () => {
  const decode = (encoding: string | null, bytes: Buffer) =>
    encoding === 'br' ? brotliDecompressSync(bytes).toString() : encoding === 'gzip' ? gunzipSync(bytes).toString() : bytes.toString();

  test.each(['/v1/', '/frame/', '/frame/assets/index-abc.js', '/frame/assets/style-abc.css'])('%s: brotli, then gzip, else as is; Vary and an ETag per encoding', async (path) => {
    const js = app(makeDist());
    const plain = await js.request(path);
    const identity = await plain.text();
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    const etags = new Set([plain.headers.get('etag')]);
    for (const [accept, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.5', 'gzip'],
      ['identity', null],
      ['*', 'br'],
    ] as const) {
      const response = await js.request(path, { headers: { 'accept-encoding': accept } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding'), accept).toBe(expected);
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(decode(expected, Buffer.from(await response.arrayBuffer()))).toBe(identity);
      etags.add(response.headers.get('etag'));
      const cached = await js.request(path, { headers: { 'accept-encoding': accept, 'if-none-match': response.headers.get('etag') ?? '' } });
      expect(cached.status).toBe(304);
    }
    expect(etags.size).toBe(3);
  });

  test("the build's precompressed siblings are served for files served as built", async () => {
    const dist = makeDist();
    writeFileSync(join(dist, 'frame', 'assets', 'index-abc.js.br'), brotliCompressSync(Buffer.from('console.log(1)')));
    writeFileSync(join(dist, 'frame', 'assets', 'index-abc.js.gz'), Buffer.from('precompressed-marker'));
    const js = app(dist);
    const response = await js.request('/frame/assets/index-abc.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('precompressed-marker');
  });
});
