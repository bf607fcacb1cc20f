import { expect, test } from '@playwright/test';
import { accountOffers, completeCryptoPayment, fillUpi, railFrame, selectPaymentMethod, waitForPaymentStatus } from '../helpers/rail-test-helpers';
import { API, pay } from './support';

/** Crypto (EUR/USD/GBP) and bank transfer (KES/GHS/TZS/UGX) simulators are switched on by e2e/account-config.json. */

test.describe('crypto', () => {
  test.beforeEach(async () => {
    expect(await accountOffers(API, 'crypto'), 'the e2e server offers crypto (e2e/account-config.json)').toBe(true);
  });

  for (const outcome of ['pay', 'expire'] as const) {
    test(`crypto: the frame shows address, amount and network; the hosted page's ${outcome} settles the payment`, async ({ page }) => {
      test.setTimeout(60_000);
      await page.goto('/checkout.html?currency=EUR&amount=5000');
      await selectPaymentMethod(page, 'Crypto');
      await page.locator('#pay').click();
      const frame = railFrame(page);
      const screen = frame.getByTestId('crypto-screen');
      await expect(screen).toBeVisible({ timeout: 15_000 });
      await expect(screen).toContainText('Wallet address');
      await expect(screen).toContainText('Network');
      await completeCryptoPayment(page, outcome);
      const expected = outcome === 'pay' ? 'succeeded' : 'failed';
      await expect(page.locator('#result')).toHaveText(new RegExp(outcome === 'pay' ? 'succeeded' : 'failed|cancelled'), { timeout: 30_000 });
      const paymentId = (await page.locator('#result').getAttribute('data-payment-id'))!;
      if (outcome === 'pay') await waitForPaymentStatus(API, paymentId, expected);
    });
  }
});

test.describe('bank transfer / mobile money', () => {
  test.beforeEach(async () => {
    expect(await accountOffers(API, 'bank_transfer'), 'the e2e server offers bank_transfer (e2e/account-config.json)').toBe(true);
  });

  test('bank transfer: the frame shows the instructions and follows the payment to its final status', async ({ page }) => {
    test.setTimeout(90_000);
    await page.goto('/checkout.html?currency=KES&amount=150000');
    await selectPaymentMethod(page, /Bank transfer|Mobile money/);
    await page.locator('#pay').click();
    const screen = railFrame(page).getByTestId('bank-transfer-screen');
    await expect(screen).toBeVisible({ timeout: 15_000 });
    await expect(screen.locator('dt').first()).toBeVisible();
    await expect(page.locator('#result')).toHaveText(/succeeded|failed/, { timeout: 75_000 });
  });
});

test('an invalid VPA is refused in the frame with ERR_6005 (a resolved error, never a rejection)', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, 'not-a-vpa');
  expect((await pay(page)).text).toBe('error:ERR_6005');
});
