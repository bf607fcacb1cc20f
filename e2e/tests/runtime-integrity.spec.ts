import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import type { RuntimeManifest } from '../../protocol/runtime-manifest';
import { E2E } from '../env';
import { SERVER_LOG } from '../playwright.config';

async function pinnedRuntime(request: APIRequestContext): Promise<RuntimeManifest['runtime']> {
  const response = await request.get(`${E2E.jsUrl}/v1/manifest.json`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as RuntimeManifest).runtime;
}

const DIST = join(import.meta.dirname, '..', '..', 'dist');
const sri = (bytes: Buffer) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

const pinnedPage = (src: string, integrity: string) => `/runtime-integrity.html?${new URLSearchParams({ src, integrity })}`;

test('the manifest pins the bytes /v1/ serves, and the server printed the same pair at startup', async ({ request }) => {
  const { src, integrity } = await pinnedRuntime(request);
  expect(src).toMatch(new RegExp(`^${E2E.jsUrl}/v1/rail\\.[0-9a-f]{16}\\.js$`));
  const stable = await (await request.get(`${E2E.jsUrl}/v1/`)).body();
  expect(integrity).toBe(`sha384-${createHash('sha384').update(stable).digest('base64')}`);
  const pinned = await request.get(src);
  expect(pinned.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(await pinned.body()).toEqual(stable);
  const log = readFileSync(SERVER_LOG, 'utf8');
  expect(log).toContain(`pinned runtime        ${src}\n`);
  expect(log).toContain(`runtime integrity     ${integrity}\n`);
});

test('one build, one hash: the served runtime is the built file, with no base_url in it; the frame document carries the base_url', async ({ request }) => {
  const { integrity } = await pinnedRuntime(request);
  const built = readFileSync(join(DIST, 'runtime', 'rail.js'));
  expect(integrity).toBe(sri(built));
  const served = await (await request.get(`${E2E.jsUrl}/v1/`)).body();
  expect(served.toString()).not.toContain(E2E.baseUrl);
  const frame = await (await request.get(`${E2E.jsUrl}/frame/`)).text();
  expect(frame).toContain(`<meta name="rail-api-base-url" content="${E2E.baseUrl}" />`);
  expect(await (await request.get(`${E2E.jsUrl}/v1/config.json`)).json()).toEqual({ api_base_url: E2E.baseUrl });
});

test('every archived release stays served at its content-addressed URL, and its bytes match the manifest integrity', async ({ request }) => {
  const { releases } = ((await (await request.get(`${E2E.jsUrl}/v1/manifest.json`)).json()) as RuntimeManifest);
  const archive = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'runtime', 'releases', 'index.json'), 'utf8')) as { hash: string; integrity: string }[];
  expect(archive.length).toBeGreaterThan(0);
  expect(releases.map((release) => release.integrity)).toEqual(archive.map((entry) => entry.integrity));
  for (const release of releases) {
    const response = await request.get(release.src);
    expect(response.status(), release.src).toBe(200);
    expect(response.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(sri(await response.body()), release.src).toBe(release.integrity);
  }
});

test('a page pinned to each archived release (script tag with its integrity) defines Rail and its payment element gets ready', async ({ page, request }) => {
  const { releases } = ((await (await request.get(`${E2E.jsUrl}/v1/manifest.json`)).json()) as RuntimeManifest);
  expect(releases.length).toBeGreaterThan(0);
  for (const release of releases) {
    await page.goto(pinnedPage(release.src, release.integrity));
    await expect(page.locator('#script-event')).toHaveText('load');
    await expect(page.locator('#element-event')).toHaveText('ready', { timeout: 15_000 });
  }
});

test("retrievePayment from the served runtime reads the payment through the deployment's base_url (/v1/config.json)", async ({ page }) => {
  await page.goto('/checkout.html');
  await page.waitForFunction(() => typeof window.Rail === 'function');
  const configRequest = page.waitForRequest(`${E2E.jsUrl}/v1/config.json`);
  const result = await page.evaluate(async (publishableKey) => {
    const created = await fetch('/create-payment', { method: 'POST' }).then((r) => r.json());
    const { payment, error } = await window.Rail!(publishableKey).retrievePayment(created.client_secret);
    return { id: created.payment_id, payment: payment?.payment_id, status: payment?.status, error: error?.code };
  }, E2E.publishableKey);
  await configRequest;
  expect(result).toEqual({ id: result.id, payment: result.id, status: 'requires_payment_method', error: undefined });
});

test("a script tag with the manifest's src and integrity defines Rail, and the payment element gets ready", async ({ page, request }) => {
  const { src, integrity } = await pinnedRuntime(request);
  await page.goto(pinnedPage(src, integrity));
  await expect(page.locator('#script-event')).toHaveText('load');
  expect(await page.evaluate(() => typeof (window as { Rail?: unknown }).Rail)).toBe('function');
  await expect(page.locator('#element-event')).toHaveText('ready', { timeout: 15_000 });
  await expect(page.locator('#payment iframe')).toHaveAttribute('src', new RegExp(`^${E2E.jsUrl}/frame/`));
});

test('the same tag with a wrong integrity is blocked: window.Rail stays undefined', async ({ page, request }) => {
  const { src } = await pinnedRuntime(request);
  // Well formed, so the browser enforces it (an unparsable value would be ignored), but of other bytes.
  const wrong = `sha384-${createHash('sha384').update('not the runtime').digest('base64')}`;
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  await page.goto(pinnedPage(src, wrong));
  await expect(page.locator('#script-event')).toHaveText('error');
  // Blocked for its digest, not for a network or CORS failure.
  await expect.poll(() => consoleLines.some((line) => line.includes("Failed to find a valid digest in the 'integrity' attribute"))).toBe(true);
  expect(await page.evaluate(() => typeof (window as { Rail?: unknown }).Rail)).toBe('undefined');
  await expect(page.locator('#payment')).toBeEmpty();
});

const loaderPage = (src: string, integrity: string) => `/loader-integrity.html?${new URLSearchParams({ src, integrity })}`;

test("the npm loader with the manifest's pair resolves an instance whose payment element gets ready", async ({ page, request }) => {
  const { src, integrity } = await pinnedRuntime(request);
  await page.goto(loaderPage(src, integrity));
  await expect(page.locator('#load-result')).toHaveText('resolved');
  expect(await page.locator(`script[src="${src}"]`).evaluate((script: HTMLScriptElement) => [script.integrity, script.crossOrigin])).toEqual([
    integrity,
    'anonymous',
  ]);
  await expect(page.locator('#element-event')).toHaveText('ready', { timeout: 15_000 });
});

test('a tag of the same src the browser already blocked does not hang the npm loader: it loads its own pinned tag', async ({ page, request }) => {
  const { src, integrity } = await pinnedRuntime(request);
  const failed = `sha384-${createHash('sha384').update('not the runtime').digest('base64')}`;
  await page.goto(`${loaderPage(src, integrity)}&${new URLSearchParams({ failed })}`);
  await expect(page.locator('#load-result')).toHaveText('resolved');
  expect(await page.locator(`script[src="${src}"]`).evaluateAll((scripts: HTMLScriptElement[]) => scripts.map((script) => script.integrity))).toEqual([failed, integrity]);
  await expect(page.locator('#element-event')).toHaveText('ready', { timeout: 15_000 });
});

test('the npm loader with a wrong integrity rejects with LoadError failed_to_load and defines nothing', async ({ page, request }) => {
  const { src } = await pinnedRuntime(request);
  await page.goto(loaderPage(src, `sha384-${createHash('sha384').update('not the runtime').digest('base64')}`));
  await expect(page.locator('#load-result')).toHaveText('rejected:LoadError:failed_to_load');
  expect(await page.evaluate(() => typeof (window as { Rail?: unknown }).Rail)).toBe('undefined');
});

test('the browser gets the runtime, the frame document and its scripts compressed (br or gzip, as it asks), with Vary: Accept-Encoding', async ({ page }) => {
  const served = new Map<string, { encoding?: string; vary?: string }>();
  // Each response's headers are read asynchronously: all of them are awaited before the check, or a script the page
  // has already run could still be missing from `served`.
  const recording: Promise<void>[] = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== E2E.jsUrl || response.status() !== 200) return;
    recording.push(
      response.allHeaders().then((headers) => {
        served.set(url.pathname, { encoding: headers['content-encoding'], vary: headers['vary'] });
      }),
    );
  });
  await page.goto('/checkout.html');
  await expect(page.locator('#pay')).toBeEnabled({ timeout: 15_000 });
  await Promise.all(recording);
  const paths = [...served.keys()];
  expect(paths).toEqual(expect.arrayContaining(['/v1/', '/frame/']));
  expect(paths.some((path) => /^\/frame\/assets\/.+\.js$/.test(path))).toBe(true);
  for (const path of paths.filter((p) => p === '/v1/' || p === '/frame/' || /\.(js|css)$/.test(p))) {
    const { encoding, vary } = served.get(path)!;
    expect(['br', 'gzip'], path).toContain(encoding);
    expect(vary, path).toBe('Accept-Encoding');
  }
});

test('profileId is refused clearly by the served runtime (no request would use it), not silently ignored', async ({ page }) => {
  await page.goto('/checkout.html');
  await page.waitForFunction(() => typeof window.Rail === 'function');
  const thrown = await page.evaluate(() => {
    try {
      window.Rail!('rail_open_test_profile', { profileId: 'pro_1' });
      return 'no error';
    } catch (error) {
      return `${(error as Error).name}:${(error as { code?: string }).code}:${(error as Error).message}`;
    }
  });
  expect(thrown).toMatch(/^IntegrationError:ERR_6002:profileId is not supported yet/);
});
