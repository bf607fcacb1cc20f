import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type Route } from '@playwright/test';
import { TEST_CARDS, TEST_MSISDNS, TEST_VPAS, chooseTestWallet, fillCard, fillMobileMoney, fillUpi, railFrame, selectPaymentMethod, waitForRailReady } from '@rail/playwright';
import { API, pay, shown } from './support';

/**
 * axe-core (WCAG 2.0/2.1 A and AA rules) on the hosted frame, in each state the customer can reach. Only the frame is
 * audited (`#payment` holds it); the fixture page around it is not ours.
 */
async function auditFrame(page: Page, state: string): Promise<void> {
  // @axe-core/playwright gives up injecting axe into a frame after a fixed 1 s and then audits without it; on a busy
  // machine that happens now and then, so an audit that did not reach into the frame is run again (at most 3 times).
  let results = await new AxeBuilder({ page }).include('#payment').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  for (let attempt = 1; attempt < 3 && !results.passes.some((rule) => rule.nodes.some((node) => node.target.length > 1)); attempt += 1) {
    results = await new AxeBuilder({ page }).include('#payment').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  }
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(summary, `axe violations in ${state}`).toEqual([]);
  // The audit did reach into the cross-origin frame: passing nodes have a target path through the iframe.
  const insideFrame = results.passes.flatMap((rule) => rule.nodes).filter((node) => node.target.length > 1);
  expect(insideFrame.length, `axe checked nodes inside the frame in ${state}`).toBeGreaterThan(0);
}

const CARD = { expiry: '12/34', cvc: '123', name: 'Asha Rao' };

/**
 * What a screen reader announces: the frame's one polite status region (#rail-notice) must hold `text`. The role and
 * aria-live are asserted with it, so the text is announced, not only shown.
 */
async function expectAnnounced(page: Page, text: string | RegExp): Promise<void> {
  const notice = railFrame(page).locator('#rail-notice');
  await expect(notice).toHaveAttribute('role', 'status');
  await expect(notice).toHaveAttribute('aria-live', 'polite');
  await expect(notice).toHaveText(text, { timeout: 15_000 });
}

test('card form, empty', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await expect(page.locator('#pay')).toBeEnabled();
  await auditFrame(page, 'the empty card form');
});

test('card form with an invalid number (field error shown)', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await fillCard(page, { number: '4242424242424241', ...CARD });
  expect((await pay(page)).text).toBe('error:ERR_6005');
  // The field's own error is a polite live region tied to the field (aria-describedby), and focus moved there.
  const number = railFrame(page).getByLabel('Card number', { exact: true });
  await expect(number).toBeFocused();
  await expect(number).toHaveAttribute('aria-invalid', 'true');
  const errorId = (await number.getAttribute('aria-describedby'))?.split(' ').find((id) => id.endsWith('-error'));
  const fieldError = railFrame(page).locator(`#${errorId}`);
  await expect(fieldError).toHaveAttribute('aria-live', 'polite');
  await expect(fieldError).not.toBeEmpty();
  await auditFrame(page, 'the card form with a field error');
});

test('card declined (notice shown)', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await fillCard(page, { number: TEST_CARDS.declined, ...CARD });
  expect((await pay(page)).text).toBe(shown('failed'));
  await expectAnnounced(page, /^The payment failed\./);
  await auditFrame(page, 'the declined notice');
});

test('a test wallet tab and its answer select', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await chooseTestWallet(page, 'google_pay', 'declined');
  await auditFrame(page, 'the test wallet tab');
});

test('UPI collect form and its wait screen', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.pending);
  await auditFrame(page, 'the UPI collect form');
  await page.locator('#pay').click();
  await expectAnnounced(page, 'Approve the payment request in your UPI app. This page updates by itself.');
  await auditFrame(page, 'the UPI wait screen');
});

test('UPI QR screen', async ({ page }) => {
  await page.goto('/checkout.html');
  await selectPaymentMethod(page, 'UPI QR');
  await page.locator('#pay').click();
  await expect(railFrame(page).getByTestId('qr-screen')).toBeVisible({ timeout: 15_000 });
  await expectAnnounced(page, 'Waiting for the payment…');
  await auditFrame(page, 'the QR screen');
});

for (const { name, url, method, screen } of [
  { name: 'bank transfer instructions', url: '/checkout.html?currency=KES&amount=150000', method: 'Bank transfer', screen: 'bank-transfer-screen' },
  { name: 'crypto payment screen', url: '/checkout.html?currency=EUR&amount=5000', method: 'Crypto', screen: 'crypto-screen' },
]) {
  test(name, async ({ page }) => {
    await page.goto(url);
    await selectPaymentMethod(page, method);
    await auditFrame(page, `the ${method} form`);
    await page.locator('#pay').click();
    await expect(railFrame(page).getByTestId(screen)).toBeVisible({ timeout: 15_000 });
    await auditFrame(page, `the ${name}`);
  });
}

test('mobile money form, its field error, and its instructions screen', async ({ page }) => {
  await page.goto('/checkout.html?currency=KES&amount=150000');
  await fillMobileMoney(page, '12');
  expect((await pay(page)).text).toBe('error:ERR_6005');
  await expect(railFrame(page).getByLabel('Mobile money number', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await auditFrame(page, 'the mobile money form with a field error');
  await fillMobileMoney(page, TEST_MSISDNS.success);
  await page.locator('#pay').click();
  await expect(railFrame(page).getByTestId('bank-transfer-screen')).toBeVisible({ timeout: 15_000 });
  await expectAnnounced(page, 'Waiting for the payment…');
  await auditFrame(page, 'the mobile money instructions');
});

test('UPI app (intent) screen', async ({ page }) => {
  await page.goto('/checkout.html');
  await selectPaymentMethod(page, /UPI app/);
  await page.locator('#pay').click();
  await expectAnnounced(page, 'Waiting for the payment…');
  await auditFrame(page, 'the UPI app screen');
});

test('success is announced', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.success);
  expect((await pay(page)).text).toBe('succeeded');
  await expectAnnounced(page, 'Payment succeeded.');
  await auditFrame(page, 'the succeeded state');
});

test('the 3DS wait state before the redirect', async ({ page }) => {
  // The top window's navigation to the 3DS page answers 204 (no content), so the browser stays on the checkout and the
  // frame stays in its "Redirecting" state to be audited.
  const redirects: string[] = [];
  await page.route(/\/simulator\/3ds\//, async (route) => {
    redirects.push(route.request().url());
    await route.fulfill({ status: 204 });
  });
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await fillCard(page, { number: TEST_CARDS.threeDsChallenge, ...CARD });
  await page.locator('#pay').click();
  await expect.poll(() => redirects.length, { timeout: 15_000 }).toBe(1);
  await expectAnnounced(page, 'Redirecting to confirm the payment…');
  await auditFrame(page, 'the 3DS redirect wait state');
});

test('the load error state is announced', async ({ page }) => {
  await page.goto('/checkout.html');
  await waitForRailReady(page);
  // A client_secret of the right shape that names no payment: the frame cannot load it.
  await page.evaluate(() => (window as never as { __rail: { elements: { update(options: object): void } } }).__rail.elements.update({ clientSecret: 'pay_AAAAAAAAAAAAAAAAAAAA_secret_BBBBBBBBBBBBBBBBBBBB' }));
  await expectAnnounced(page, 'The payment form could not load. Refresh the page to try again.');
  await auditFrame(page, 'the load error state');
});

test('keyboard only, card: Tab into the frame, arrow to Card, type every field, Enter pays, the decline is announced', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await waitForRailReady(page);
  await expect(page.locator('#pay')).toBeEnabled();
  const frame = railFrame(page);
  const focusedId = () => frame.locator('body').evaluate(() => `${(document.activeElement as HTMLInputElement | null)?.type}:${document.activeElement?.id ?? ''}:${(document.activeElement as HTMLInputElement | null)?.value ?? ''}`);
  await page.locator('body').focus();
  let focused = '';
  for (let i = 0; i < 12 && !focused.startsWith('radio:'); i++) {
    await page.keyboard.press('Tab');
    focused = await focusedId();
  }
  // The method selector is a radio group: arrows move to Card, Tab enters its form.
  for (let step = 0; step < 6 && !/^radio:.*:(card|credit)/.test(focused); step++) {
    await page.keyboard.press('ArrowRight');
    focused = await focusedId();
  }
  await expect(frame.getByTestId('card-form')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(frame.getByLabel('Card number', { exact: true })).toBeFocused();
  for (const value of [TEST_CARDS.declined, CARD.expiry, CARD.cvc]) {
    await page.keyboard.type(value);
    await page.keyboard.press('Tab');
  }
  await expect(frame.getByLabel('Name on card', { exact: true })).toBeFocused();
  await page.keyboard.type(CARD.name);
  await page.keyboard.press('Enter');
  await expect(page.locator('#result')).toHaveText(shown('failed'), { timeout: 20_000 });
  await expectAnnounced(page, /^The payment failed\./);
});

test('a saved method (returning customer)', async ({ page }) => {
  test.setTimeout(60_000);
  const created = await fetch(`${API.apiBaseUrl}/customers`, {
    method: 'POST',
    headers: { 'api-key': API.secretKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Returning customer' }),
  });
  const { customer_id: customerId } = (await created.json()) as { customer_id: string };
  await page.goto(`/checkout.html?customer_id=${customerId}&setup_future_usage=on_session`);
  await fillUpi(page, TEST_VPAS.success);
  expect((await pay(page)).text).toBe('succeeded');
  await page.goto(`/checkout.html?customer_id=${customerId}`);
  await expect(railFrame(page).getByTestId('saved-method')).toBeVisible({ timeout: 15_000 });
  await auditFrame(page, 'the saved method');
});
