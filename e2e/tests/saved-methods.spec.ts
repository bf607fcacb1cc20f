import { expect, test } from '@playwright/test';
import { TEST_VPAS, fillUpi, retrievePayment } from '@rail/playwright';
import { API, pay } from './support';

/** A customer made with the secret key, as a merchant backend would. */
async function newCustomer(): Promise<string> {
  const response = await fetch(`${API.apiBaseUrl}/customers`, {
    method: 'POST',
    headers: { 'api-key': API.secretKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Returning customer' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { customer_id: string }).customer_id;
}

test('a checkout saves the UPI method, and the next checkout of that customer pays with it in the frame', async ({ page }) => {
  test.setTimeout(60_000);
  const customerId = await newCustomer();

  // First checkout: the customer types the UPI ID; the payment asks to save it (recurring is on for UPI in test mode).
  await page.goto(`/checkout.html?customer_id=${customerId}&setup_future_usage=on_session`);
  await fillUpi(page, TEST_VPAS.success);
  const first = await pay(page);
  expect(first.text).toBe('succeeded');
  const saved = await retrievePayment(API, first.paymentId);
  expect(saved.payment_method_id).toMatch(/^pm_/);

  // Second checkout: the frame offers the saved method first; paying sends no UPI ID.
  await page.goto(`/checkout.html?customer_id=${customerId}`);
  const frame = page.frameLocator('#payment iframe');
  await expect(frame.getByTestId('saved-method')).toBeVisible();
  await expect(frame.getByRole('radio', { checked: true })).toHaveValue(`saved:${saved.payment_method_id}`);
  const second = await pay(page);
  expect(second.text).toBe('succeeded');
  const charged = await retrievePayment(API, second.paymentId);
  expect(charged).toMatchObject({ status: 'succeeded', payment_method_id: saved.payment_method_id, amount_received: 10000 });
});
