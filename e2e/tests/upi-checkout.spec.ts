import { expect, test, type Page } from '@playwright/test';
import { E2E } from '../env';

const CARD_LIKE_DIGITS = /\d{13,19}/;

async function payWithVpa(page: Page, vpa: string): Promise<string> {
  await page.goto('/checkout.html');
  const frame = page.frameLocator('#payment iframe');
  await frame.getByLabel('UPI ID').fill(vpa);
  await expect(page.locator('#pay')).toBeEnabled();
  await page.locator('#pay').click();
  const result = page.locator('#result');
  await expect(result).not.toBeEmpty({ timeout: 15_000 });
  return (await result.getAttribute('data-payment-id')) ?? '';
}

async function fetchPaymentWithSecretKey(paymentId: string): Promise<{ status: string; amount_received: number | null }> {
  const response = await fetch(`${E2E.baseUrl}/payments/${paymentId}`, { headers: { 'api-key': E2E.secretKey } });
  expect(response.status).toBe(200);
  return response.json();
}

test('the hosted frame is served from js_url, an origin other than the merchant page', async ({ page }) => {
  await page.goto('/checkout.html');
  const src = await page.locator('#payment iframe').getAttribute('src');
  expect(src).not.toBeNull();
  expect(new URL(src!).origin).toBe(E2E.jsUrl);
  expect(new URL(page.url()).origin).not.toBe(E2E.jsUrl);
});

test('a UPI collect payment with success@upi succeeds and the server agrees', async ({ page }) => {
  const paymentId = await payWithVpa(page, 'success@upi');
  await expect(page.locator('#result')).toHaveText('succeeded');
  const payment = await fetchPaymentWithSecretKey(paymentId);
  expect(payment.status).toBe('succeeded');
  expect(payment.amount_received).toBe(10000);
});

test('a UPI collect payment with failure@upi resolves a failed payment', async ({ page }) => {
  const paymentId = await payWithVpa(page, 'failure@upi');
  await expect(page.locator('#result')).toHaveText('failed');
  expect((await fetchPaymentWithSecretKey(paymentId)).status).toBe('failed');
});

test('no message the merchant window receives holds a run of 13 to 19 digits', async ({ page }) => {
  await payWithVpa(page, 'success@upi');
  await expect(page.locator('#result')).toHaveText('succeeded');
  const messages: Array<{ origin: string; data: string }> = await page.evaluate(() => (window as never as { __railMessages: [] }).__railMessages);
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(message.data).not.toMatch(CARD_LIKE_DIGITS);
});
