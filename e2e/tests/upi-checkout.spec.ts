import { expect, test } from '@playwright/test';
import { E2E } from '../env';
import { TEST_VPAS, approveUpiRequest, fillUpi, retrievePayment, waitForPaymentStatus } from '@rail/playwright';
import { API, pay, shown } from './support';

const CARD_LIKE_DIGITS = /\d{13,19}/;

test('the hosted frame is served from js_url, an origin other than the merchant page', async ({ page }) => {
  await page.goto('/checkout.html');
  const src = await page.locator('#payment iframe').getAttribute('src');
  expect(src).not.toBeNull();
  expect(new URL(src!).origin).toBe(E2E.jsUrl);
  expect(new URL(page.url()).origin).not.toBe(E2E.jsUrl);
});

test('a UPI collect payment with success@upi succeeds and the server agrees', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.success);
  const { text, paymentId } = await pay(page);
  expect(text).toBe('succeeded');
  const payment = await retrievePayment(API, paymentId);
  expect(payment.status).toBe('succeeded');
  expect(payment.amount_received).toBe(10000);
});

test('a UPI collect payment with failure@upi resolves a failed payment', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.failure);
  const { text, paymentId } = await pay(page);
  expect(text).toBe(shown('failed'));
  await waitForPaymentStatus(API, paymentId, 'failed');
});

test('a pending UPI collect shows the wait screen, then resolves when the customer approves', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.pending);
  await page.locator('#pay').click();
  await approveUpiRequest(page);
  await expect(page.locator('#result')).toHaveText('succeeded', { timeout: 15_000 });
  await waitForPaymentStatus(API, (await page.locator('#result').getAttribute('data-payment-id'))!, 'succeeded');
});

test('no message the merchant window receives holds a run of 13 to 19 digits', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, TEST_VPAS.success);
  expect((await pay(page)).text).toBe('succeeded');
  const messages: Array<{ origin: string; data: string }> = await page.evaluate(() => (window as never as { __railMessages: [] }).__railMessages);
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(message.data).not.toMatch(CARD_LIKE_DIGITS);
});
