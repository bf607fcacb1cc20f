import { expect, test } from '@playwright/test';
import { E2E } from '../env';
import { accountOffers, answerUpiSimulatorPage, railFrame, retrievePayment, selectPaymentMethod, upiSimulatorPageUrl, waitForPaymentStatus } from '../helpers/rail-test-helpers';
import { API } from './support';

/** UPI intent and UPI QR (INR): the frame shows the intent / QR screen, the simulator page answers, the frame follows. */

const CASES = [
  { type: 'upi_intent', tab: 'UPI app', screen: 'intent-screen', outcome: 'approve', expected: 'succeeded' },
  { type: 'upi_qr', tab: 'UPI QR', screen: 'qr-screen', outcome: 'decline', expected: 'failed' },
] as const;

test.beforeEach(async () => {
  expect(await accountOffers(API, 'upi'), 'the e2e server offers upi (e2e/account-config.json)').toBe(true);
});

for (const { type, tab, screen, outcome, expected } of CASES) {
  test(`${type}: the frame shows the ${type === 'upi_intent' ? 'intent' : 'QR'} screen; ${outcome} on the simulator page ends ${expected}`, async ({ page }) => {
    test.setTimeout(60_000);
    await page.goto('/checkout.html');
    await selectPaymentMethod(page, tab);
    await page.locator('#pay').click();
    const frame = railFrame(page);
    await expect(frame.getByTestId(screen)).toBeVisible({ timeout: 15_000 });
    const paymentId: string = await page.evaluate(() => (window as never as { __rail: { paymentId: string } }).__rail.paymentId);
    const payment = await retrievePayment(API, paymentId);
    expect(payment).toMatchObject({ status: 'requires_customer_action', payment_method_type: type });
    const pageUrl = await upiSimulatorPageUrl(API, paymentId);
    expect(pageUrl.startsWith(`${E2E.baseUrl}/simulator/upi/${paymentId}?`)).toBe(true);
    const link = frame.getByTestId(screen).getByRole('link');
    if (type === 'upi_intent') {
      await expect(link).toHaveAttribute('href', /^upi:\/\/pay\?pa=rail\.simulator%40upi&/);
    } else {
      await expect(link).toHaveAttribute('href', pageUrl);
    }
    await answerUpiSimulatorPage(page, API, paymentId, outcome);
    await expect(page.locator('#result')).toHaveText(expected, { timeout: 30_000 });
    expect(await page.locator('#result').getAttribute('data-payment-id')).toBe(paymentId);
    await waitForPaymentStatus(API, paymentId, expected);
  });
}
