import { expect, test, type Page } from '@playwright/test';
import { TEST_CARDS, TEST_MSISDNS, TEST_VPAS, completeThreeDsChallenge, fillCard, fillMobileMoney, fillUpi, railFrame, waitForRailReady } from '@rail/playwright';
import { E2E } from '../env';

/**
 * The demo checkout of `npm start` ({base_url}/demo): its own test account offers every method the simulators play,
 * in the currency picked, with the test inputs beside the form.
 */
const DEMO = `${E2E.baseUrl}/demo`;

async function methodNames(page: Page): Promise<string[]> {
  const frame = await waitForRailReady(page);
  return frame.getByRole('radio').evaluateAll((radios) => radios.map((radio) => radio.closest('label')?.textContent?.trim() ?? ''));
}

test('each currency shows its methods: INR UPI and cards, EUR cards and crypto, KES bank transfer and mobile money', async ({ page }) => {
  await page.goto(DEMO);
  await expect(page.locator('#pay')).toBeEnabled();
  expect(await methodNames(page)).toEqual(expect.arrayContaining(['Card', 'UPI', 'UPI QR']));
  for (const [currency, expected, amount] of [
    ['EUR', ['Card', 'Crypto'], '€25.00'],
    ['KES', ['Bank transfer', 'Mobile money'], '1,500.00'],
  ] as const) {
    await page.locator('#currency').selectOption(currency);
    await expect(railFrame(page).locator('.Amount-value')).toContainText(amount);
    expect(await methodNames(page)).toEqual(expect.arrayContaining([...expected]));
  }
});

test('the test inputs are beside the form', async ({ page }) => {
  await page.goto(DEMO);
  const inputs = page.getByRole('complementary', { name: 'Test inputs' });
  for (const value of [TEST_VPAS.success, TEST_VPAS.failure, TEST_VPAS.pending, '4242 4242 4242 4242', '4000 0000 0000 0002', '4000 0038 0000 0446', '4000 0000 0000 3055', '4000 0084 0000 1629', 'Google Pay', TEST_MSISDNS.success]) {
    await expect(inputs).toContainText(value);
  }
});

test('UPI collect pays with success@upi', async ({ page }) => {
  await page.goto(DEMO);
  await fillUpi(page, TEST_VPAS.success);
  await page.locator('#pay').click();
  await expect(page.locator('#result')).toHaveText('succeeded', { timeout: 15_000 });
});

test('a card with a 3DS challenge: the simulator page, then back on the demo with the status', async ({ page }) => {
  await page.goto(`${DEMO}?currency=EUR`);
  await expect(railFrame(page).locator('.Amount-value')).toContainText('€25.00');
  await fillCard(page, { number: TEST_CARDS.threeDsChallenge, expiry: '12/34', cvc: '123', name: 'Asha Rao' });
  await Promise.all([page.waitForURL(/\/simulator\/3ds\//, { timeout: 15_000 }), page.locator('#pay').click()]);
  await completeThreeDsChallenge(page, 'complete');
  expect(new URL(page.url()).pathname).toBe('/demo');
  expect(new URL(page.url()).searchParams.get('currency')).toBe('EUR');
  await expect(page.locator('#result')).toHaveText('succeeded');
});

test('mobile money shows the instructions with the simulator link', async ({ page }) => {
  await page.goto(`${DEMO}?currency=KES`);
  await fillMobileMoney(page, TEST_MSISDNS.success);
  await page.locator('#pay').click();
  await expect(railFrame(page).getByTestId('bank-transfer-screen')).toBeVisible({ timeout: 15_000 });
  await expect(railFrame(page).getByRole('link', { name: /simulat/i })).toBeVisible();
});
