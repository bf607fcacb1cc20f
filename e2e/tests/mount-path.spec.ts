import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { E2E } from '../env';
import { SERVER_LOG } from '../playwright.config';
import { railFrame, waitForRailReady } from '@rail/playwright';
import { elementEvents } from './support';

/**
 * The mount path (issue 17 §4): the frame document's inline head script starts the load GET (methods with the payment),
 * the app chunk is preloaded beside the boot script, and the app takes that response instead of asking again.
 */
test('the frame document preloads its app chunk and preconnects to the API; both scripts are served', async ({ request }) => {
  const html = await (await request.get(`${E2E.jsUrl}/frame/`)).text();
  expect(html).toContain(`<link rel="preconnect" href="${E2E.baseUrl}" crossorigin />`);
  const boot = /<script type="module" crossorigin src="(\/frame\/assets\/[^"]+\.js)"><\/script>/.exec(html)?.[1];
  const app = /<link rel="modulepreload" crossorigin href="(\/frame\/assets\/[^"]+\.js)">/.exec(html)?.[1];
  expect(boot).toMatch(/^\/frame\/assets\/.+\.js$/);
  expect(app).toMatch(/^\/frame\/assets\/.+\.js$/);
  expect(app).not.toBe(boot);
  for (const path of [boot!, app!]) expect((await request.get(`${E2E.jsUrl}${path}`)).status(), path).toBe(200);
  // The boot script is the small part (the fragment, the load request and the penpal handshake); the app holds the rest.
  const [bootBytes, appBytes] = [(await (await request.get(`${E2E.jsUrl}${boot}`)).body()).length, (await (await request.get(`${E2E.jsUrl}${app}`)).body()).length];
  expect(bootBytes * 4).toBeLessThan(appBytes);
});

test("the document's inline head script starts the load request before the styles and the modules, allowed by its hash alone; the styles are in the document", async ({ request }) => {
  const response = await request.get(`${E2E.jsUrl}/frame/`);
  const html = await response.text();
  const inline = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  expect(inline).toContain('/account/payment_methods');
  // No stylesheet to read from the cache before the modules: the frame's styles are a <style> element of its own.
  expect(html).not.toContain('rel="stylesheet"');
  expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<style>'));
  expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<script type="module"'));
  const scriptSrc = /script-src ([^;]+)/.exec(response.headers()['content-security-policy'] ?? '')?.[1];
  expect(scriptSrc).toBe(`'self' 'sha256-${createHash('sha256').update(inline!).digest('base64')}'`);
});

test('mounting asks the API once, for the methods with the payment expanded, and the element gets ready', async ({ page }) => {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== E2E.baseUrl) return;
    calls.push(`${request.method()} ${url.pathname.replace(/pay_\w+/, '{id}')}${url.searchParams.has('expand_payment') ? `?expand_payment=${url.searchParams.get('expand_payment')}` : ''}`);
  });
  // The e2e account's simulated card acquirer offers test wallets, whose session tokens the frame asks for after
  // `ready`: held here until `ready` has arrived, which it must do without them.
  let releaseTokens!: () => void;
  const tokensHeld = new Promise<void>((resolve) => (releaseTokens = resolve));
  await page.route(`${E2E.baseUrl}/payments/session_tokens`, async (route) => {
    if (route.request().method() === 'POST') await tokensHeld;
    await route.continue();
  });
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.goto('/checkout.html');
  await waitForRailReady(page);
  // The inline script ran (the frame's CSP allowed it) and the boot script took its request instead of asking again.
  expect(refused).toEqual([]);
  // `ready` leaves the frame with the rendered form, and reaches the page a message later (after the handshake, when
  // the form was faster than it): once.
  await expect.poll(async () => (await elementEvents(page)).filter((entry) => entry.type === 'ready').length).toBe(1);
  // The merchant page's own POST /create-payment goes to its server, not the API: these are the frame's calls only.
  expect(calls.filter((call) => call.startsWith('GET '))).toEqual(['GET /account/payment_methods?expand_payment=true']);
  expect(calls.filter((call) => !call.startsWith('GET ') && !call.startsWith('OPTIONS ') && call !== 'POST /payments/session_tokens')).toEqual([]);
  releaseTokens();
  await expect(railFrame(page).getByRole('radio', { name: 'Google Pay (test)', exact: true })).toBeVisible();
});

/** `METHOD /path` of each request the API logged from byte `from` of its log on (pino lines; the query is never logged). */
function apiRequestsLoggedSince(from: number): string[] {
  const lines = readFileSync(SERVER_LOG).subarray(from).toString('utf8').split('\n');
  return lines.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string };
      return entry.msg === 'request' ? [`${entry.method} ${entry.path}`] : [];
    } catch {
      return [];
    }
  });
}

// Playwright answers CORS preflights itself while a page.route() is active, and never reports them as requests, so
// the API's own request log is what shows whether the browser sent one: this test routes nothing.
test('mounting sends no CORS preflight: the load GET carries the key as key= and no header', async ({ page }) => {
  const from = statSync(SERVER_LOG).size;
  await page.goto('/checkout.html');
  await waitForRailReady(page);
  // The wallet session tokens POST keeps its api-key header, so its preflight shows that preflights reach this log.
  await expect.poll(() => apiRequestsLoggedSince(from).filter((call) => call === 'OPTIONS /payments/session_tokens').length).toBeGreaterThan(0);
  const logged = apiRequestsLoggedSince(from);
  expect(logged).toContain('GET /account/payment_methods');
  // Other specs run beside this one, so only the mount's own GET paths are looked at.
  expect(logged.filter((call) => /^OPTIONS \/(account\/payment_methods|payments\/pay_\w+)$/.test(call))).toEqual([]);
});
