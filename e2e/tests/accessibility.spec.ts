import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { TEST_CARDS, TEST_VPAS, fillCard, fillUpi, railFrame, selectPaymentMethod } from '@rail/playwright';
import { pay, shown } from './support';

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

test('card form, empty', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await expect(page.locator('#pay')).toBeEnabled();
  await auditFrame(page, 'the empty card form');
});

test('card form with an invalid number (field error shown)', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await fillCard(page, { number: '4242424242424241', ...CARD });
  expect((await pay(page)).text).toBe('error:ERR_6005');
  await auditFrame(page, 'the card form with a field error');
});

test('card declined (notice shown)', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500');
  await fillCard(page, { number: TEST_CARDS.declined, ...CARD });
  expect((await pay(page)).text).toBe(shown('failed'));
  await expect(railFrame(page).locator('#rail-notice')).toContainText('The payment failed.');
  await auditFrame(page, 'the declined notice');
});

test('UPI collect form and its wait screen', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.pending);
  await auditFrame(page, 'the UPI collect form');
  await page.locator('#pay').click();
  await expect(railFrame(page).getByText(/approve/i).first()).toBeVisible({ timeout: 15_000 });
  await auditFrame(page, 'the UPI wait screen');
});

test('UPI QR screen', async ({ page }) => {
  await page.goto('/checkout.html');
  await selectPaymentMethod(page, 'UPI QR');
  await page.locator('#pay').click();
  await expect(railFrame(page).getByTestId('qr-screen')).toBeVisible({ timeout: 15_000 });
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
