import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Hono } from 'hono';
import { describe, expect, test } from 'vitest';
import { createLogger } from '../logger';
import type { RuntimeManifest } from '../../../protocol/runtime-manifest';
import { API_BASE_URL_PLACEHOLDER, RELEASES_DIR, RuntimeBuild, createJsApp, frameCsp, inlineScriptHashes } from './js-app';

/** The manifest the app serves, or undefined while the runtime is not built. */
async function readRuntimeManifest(js: Hono): Promise<RuntimeManifest | undefined> {
  const response = await js.request('/v1/manifest.json');
  return response.ok ? ((await response.json()) as RuntimeManifest) : undefined;
}

const ANCESTORS = ['https://shop.example.com', 'http://localhost:*', 'http://127.0.0.1:*'];
const JS_URL = 'https://js.example.com';

const RUNTIME = 'window.Rail=function(){};';

function digestOf(bytes: string | Uint8Array) {
  const digest = createHash('sha384').update(bytes).digest();
  return { hash: digest.subarray(0, 8).toString('hex'), integrity: `sha384-${digest.toString('base64')}` };
}

/** Archives `bytes` as a release in dist (as scripts/runtime-releases.mjs stage lays it out). */
function addRelease(dist: string, bytes: string, released: string, entry = digestOf(bytes)): { hash: string; integrity: string } {
  const dir = join(dist, RELEASES_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `rail.${entry.hash}.js`), bytes);
  let index: unknown[] = [];
  try {
    index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as unknown[];
  } catch {
    index = [];
  }
  writeFileSync(join(dir, 'index.json'), JSON.stringify([...index, { ...entry, released }]));
  return entry;
}

function makeDist(): string {
  const dist = mkdtempSync(join(tmpdir(), 'rail-dist-'));
  mkdirSync(join(dist, 'runtime'));
  mkdirSync(join(dist, 'frame', 'assets'), { recursive: true });
  writeFileSync(join(dist, 'runtime', 'rail.js'), RUNTIME);
  writeFileSync(
    join(dist, 'frame', 'index.html'),
    `<!doctype html><meta name="rail-api-base-url" content="${API_BASE_URL_PLACEHOLDER}"><script type="module" src="/frame/assets/index-abc.js"></script>`,
  );
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
  test('GET /v1/ serves the runtime exactly as built, cacheable, with a strong ETag', async () => {
    const js = app(makeDist());
    const response = await js.request('/v1/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const text = await response.text();
    expect(text).toBe(RUNTIME);
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
      releases: [],
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

  test('one build, one hash: deployments with other base_urls serve the same bytes, URL and integrity as the file', async () => {
    const dist = makeDist();
    const other = createJsApp({
      logger: createLogger('silent'),
      distDir: dist,
      publicBaseUrl: 'https://api.other.example',
      publicJsUrl: JS_URL,
      frameAncestors: ANCESTORS,
    });
    const [mine, theirs] = [(await manifestOf(app(dist))).runtime, (await manifestOf(other)).runtime];
    expect(theirs).toEqual(mine);
    const file = digestOf(readFileSync(join(dist, 'runtime', 'rail.js')));
    expect(mine).toEqual({ src: `${JS_URL}/v1/rail.${file.hash}.js`, integrity: file.integrity });
    expect(new Uint8Array(await (await other.request('/v1/')).arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(dist, 'runtime', 'rail.js'))));
  });

  test('GET /v1/config.json names this deployment\'s API base_url, readable cross-origin', async () => {
    const response = await app(makeDist()).request('/v1/config.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await response.json()).toEqual({ api_base_url: 'https://api.example.com' });
  });

  test('the frame document carries the API base_url (HTML-escaped); the runtime does not', async () => {
    const html = await (await app(makeDist()).request('/frame/')).text();
    expect(html).toContain('<meta name="rail-api-base-url" content="https://api.example.com">');
    expect(html).not.toContain(API_BASE_URL_PLACEHOLDER);
    const odd = createJsApp({ logger: createLogger('silent'), distDir: makeDist(), publicBaseUrl: 'https://api.example.com/a"b<c', publicJsUrl: JS_URL, frameAncestors: [] });
    expect(await (await odd.request('/frame/')).text()).toContain('content="https://api.example.com/a&#34;b&#60;c"');
  });

  test('archived releases stay served at their content-addressed URLs, immutable, and the manifest lists them', async () => {
    const dist = makeDist();
    const old = addRelease(dist, 'window.Rail=function(){/* release 1 */};', '2026-11-01');
    const current = addRelease(dist, RUNTIME, '2026-11-25');
    const js = app(dist);
    const manifest = await manifestOf(js);
    expect(manifest.releases).toEqual([
      { src: `${JS_URL}/v1/rail.${old.hash}.js`, integrity: old.integrity, released: '2026-11-01' },
      { src: `${JS_URL}/v1/rail.${current.hash}.js`, integrity: current.integrity, released: '2026-11-25' },
    ]);
    expect(manifest.runtime).toEqual({ src: `${JS_URL}/v1/rail.${current.hash}.js`, integrity: current.integrity });
    for (const release of manifest.releases) {
      const response = await js.request(new URL(release.src).pathname, { headers: { 'accept-encoding': 'identity' } });
      expect(response.status, release.src).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(digestOf(new Uint8Array(await response.arrayBuffer())).integrity).toBe(release.integrity);
    }
    // /v1/ is the current build, not the old release.
    expect(await (await js.request('/v1/')).text()).toBe(RUNTIME);
  });

  test('an archived release whose bytes do not match its recorded hash is neither listed nor served', async () => {
    const dist = makeDist();
    const good = addRelease(dist, 'window.Rail=function(){/* good */};', '2026-11-01');
    const claimed = digestOf('window.Rail=function(){/* what was released */};');
    addRelease(dist, 'window.Rail=function(){/* tampered */};', '2026-11-02', claimed);
    const js = app(dist);
    expect((await manifestOf(js)).releases.map((release) => release.integrity)).toEqual([good.integrity]);
    const response = await js.request(`/v1/rail.${claimed.hash}.js`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_2006' } });
  });

  test("the build's current script is pinned without reading the releases; the app serves that same build", async () => {
    const dist = makeDist();
    const claimed = digestOf('window.Rail=function(){/* what was released */};');
    addRelease(dist, 'window.Rail=function(){/* tampered */};', '2026-11-02', claimed);
    const logged: string[] = [];
    const logger = createLogger('info', { write: (line: string) => logged.push(line) });
    const build = new RuntimeBuild({ logger, distDir: dist, publicJsUrl: JS_URL });
    const current = await build.current();
    expect(current).toEqual({ src: `${JS_URL}/v1/rail.${digestOf(RUNTIME).hash}.js`, integrity: digestOf(RUNTIME).integrity });
    // The tampered release is only found out by what reads the releases.
    expect(logged).toEqual([]);
    const js = createJsApp({ logger, distDir: dist, publicBaseUrl: 'https://api.example.com', publicJsUrl: JS_URL, frameAncestors: ANCESTORS, runtime: build });
    expect(await readRuntimeManifest(js)).toEqual({ runtime: current, releases: [] });
    expect(logged.some((line) => line.includes('runtime release is missing or its bytes do not match'))).toBe(true);
  });

  test('a malformed releases index serves the current build and no release', async () => {
    const dist = makeDist();
    mkdirSync(join(dist, RELEASES_DIR), { recursive: true });
    writeFileSync(join(dist, RELEASES_DIR, 'index.json'), '{"not":"a list"}');
    const js = app(dist);
    expect((await manifestOf(js)).releases).toEqual([]);
    expect((await js.request('/v1/')).status).toBe(200);
  });

  test('GET /frame/ serves the frame with its CSP: nothing is allowed that is not named, and it fetches from its API only', async () => {
    const response = await app(makeDist()).request('/frame/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'none'; img-src data:; font-src https: http://localhost:* http://127.0.0.1:*; " +
        "connect-src https://api.example.com; frame-ancestors https://shop.example.com http://localhost:* http://127.0.0.1:*; base-uri 'none'; form-action 'none'",
    );
  });

  test("the origins a frame URL declares (customBackendUrl, font stylesheets) join the API's in connect-src, once each", async () => {
    const js = app(makeDist());
    const query = ['https://proxy.shop.example.com', 'https://fonts.googleapis.com', 'https://api.example.com', 'http://127.0.0.1:5173', 'https://fonts.googleapis.com']
      .map((origin) => `connect=${encodeURIComponent(origin)}`)
      .join('&');
    const csp = (await js.request(`/frame/?${query}`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain('; connect-src https://api.example.com https://proxy.shop.example.com https://fonts.googleapis.com http://127.0.0.1:5173; ');
  });

  test.each([
    ['a source list', 'https://a.example.com https://evil.example'],
    ['another directive', "https://a.example.com; script-src 'unsafe-inline'"],
    ['a path', 'https://a.example.com/fonts'],
    ['a scheme source', 'https:'],
    ['a wildcard', 'https://*.example.com'],
    ['another scheme', 'data:text/css,x'],
    ['an upper-case host', 'https://A.example.com'],
  ])('a declared origin that is not exactly an http(s) origin (%s) is refused with ERR_2003, never put in the CSP', async (_name, value) => {
    const response = await app(makeDist()).request(`/frame/?connect=${encodeURIComponent(value)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(await response.json()).toMatchObject({ error: { code: 'ERR_2003', field_name: 'connect' } });
  });

  test('at most eleven declared origins (one customBackendUrl, ten font stylesheets)', async () => {
    const js = app(makeDist());
    const query = (count: number) => Array.from({ length: count }, (_, index) => `connect=https://f${index}.example.com`).join('&');
    expect((await js.request(`/frame/?${query(11)}`)).status).toBe(200);
    expect((await js.request(`/frame/?${query(12)}`)).status).toBe(400);
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

  test("the frame's CSP allows its inline script and its style element by the hashes of the bytes served, and no other", async () => {
    const dist = makeDist();
    const inline = 'window.started=1;';
    const style = ':root{--x:1}\n';
    writeFileSync(
      join(dist, 'frame', 'index.html'),
      `<!doctype html><meta name="rail-api-base-url" content="${API_BASE_URL_PLACEHOLDER}"><script>${inline}</script><style>${style}</style><script type="module" src="/frame/assets/index-abc.js"></script>`,
    );
    const csp = (await app(dist).request('/frame/')).headers.get('content-security-policy') ?? '';
    const hash = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(csp).toContain(`; script-src 'self' 'sha256-${hash(inline)}'; style-src 'sha256-${hash(style)}'; `);
    expect(csp).not.toContain('unsafe-inline');
    expect(inlineScriptHashes('<script type="module" src="/a.js"></script><p>no inline</p>')).toEqual([]);
  });

  test('frameCsp with no ancestors forbids framing', () => {
    expect(frameCsp([], { scriptHashes: [], styleHashes: [] }, ['https://api.example.com'])).toContain("frame-ancestors 'none'");
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

  test("the runtime is served as built, so the build's precompressed siblings are what /v1/ sends", async () => {
    const dist = makeDist();
    writeFileSync(join(dist, 'runtime', 'rail.js.br'), brotliCompressSync(Buffer.from(RUNTIME)));
    writeFileSync(join(dist, 'runtime', 'rail.js.gz'), Buffer.from('precompressed-runtime'));
    const response = await app(dist).request('/v1/', { headers: { 'accept-encoding': 'gzip' } });
    expect(Buffer.from(await response.arrayBuffer()).toString()).toBe('precompressed-runtime');
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
