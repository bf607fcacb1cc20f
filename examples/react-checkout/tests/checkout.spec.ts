import { TEST_CARDS, TEST_VPAS, expect, fillCard, fillUpi, test, waitForPaymentStatus, type RailFixture } from '@rail/playwright';
import type { Page } from '@playwright/test';

/** The built app, told by its URL where the worker's embedded Rail is and which payment to show. */
async function openCheckout(page: Page, rail: RailFixture, body?: Record<string, unknown>): Promise<string> {
  const payment = await rail.createPayment(body);
  const query = new URLSearchParams({ js_url: rail.jsUrl, pk: rail.publishableKey, client_secret: payment.client_secret });
  await page.goto(`/?${query}`);
  return payment.payment_id;
}

test('UPI checkout in the React app: onChange reports completeness, the payment succeeds', async ({ page, rail }) => {
  const paymentId = await openCheckout(page, rail);
  await expect(page.getByTestId('complete')).toHaveText('incomplete');
  await fillUpi(page, TEST_VPAS.success);
  await expect(page.getByTestId('complete')).toHaveText('complete');
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('result')).toHaveText('succeeded');
  await waitForPaymentStatus(rail.access, paymentId, 'succeeded');
});

test('card checkout in the React app succeeds', async ({ page, rail }) => {
  const paymentId = await openCheckout(page, rail, { amount: 2500, currency: 'USD' });
  await fillCard(page, { number: TEST_CARDS.success, expiry: '12/34', cvc: '123', name: 'Asha Rao' });
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('result')).toHaveText('succeeded');
  await waitForPaymentStatus(rail.access, paymentId, 'succeeded');
});

test('under vite dev, @rail/vite serves the keys and the payment: the app pays with no query at all', async ({ page }) => {
  await page.goto('http://127.0.0.1:4318/');
  await fillUpi(page, TEST_VPAS.success);
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page.getByTestId('result')).toHaveText('succeeded');
});
