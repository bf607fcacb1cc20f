import { expect, test } from '@playwright/test';
import { TEST_WALLETS, accountOffers, chooseTestWallet, railFrame, retrievePayment, waitForRailReady } from '@rail/playwright';
import { API, pay, shown } from './support';

/**
 * The simulated card acquirer's test wallets through the real frame (docs/simulator.md, "Wallet session tokens"):
 * the frame shows a tab for each wallet whose session token arrives, and confirms with the wallet's own shape and
 * the simulator's token; PayPal through the order post_session_tokens opens.
 */
test.beforeEach(async () => {
  expect(await accountOffers(API, 'wallet'), 'the e2e server offers test wallets with its simulated card acquirer').toBe(true);
});

const CHECKOUT = '/checkout.html?currency=EUR&amount=2500';

test('the frame shows a tab for each test wallet, and none in a currency the card rail does not take', async ({ page }) => {
  await page.goto(CHECKOUT);
  const frame = await waitForRailReady(page);
  for (const name of Object.values(TEST_WALLETS)) await expect(frame.getByRole('radio', { name, exact: true })).toBeVisible();
  await page.goto('/checkout.html?currency=KES&amount=150000');
  const kes = await waitForRailReady(page);
  await expect(kes.getByRole('radio', { name: TEST_WALLETS.google_pay, exact: true })).toHaveCount(0);
});

for (const wallet of ['google_pay', 'apple_pay', 'paypal'] as const) {
  test(`${wallet}: approved, the payment succeeds as a wallet payment of the card simulator`, async ({ page }) => {
    await page.goto(CHECKOUT);
    await chooseTestWallet(page, wallet, 'approved');
    const { text, paymentId } = await pay(page);
    expect(text).toBe('succeeded');
    expect(await retrievePayment(API, paymentId)).toMatchObject({
      status: 'succeeded',
      amount_received: 2500,
      payment_method: 'wallet',
      payment_method_type: wallet,
      connector: 'card_simulator',
    });
  });
}

test('a declined wallet answer fails the payment and the frame says so', async ({ page }) => {
  await page.goto(CHECKOUT);
  await chooseTestWallet(page, 'google_pay', 'declined');
  const { text, paymentId } = await pay(page);
  expect(text).toBe(shown('failed'));
  await expect(railFrame(page).locator('#rail-notice')).toContainText('The payment failed.');
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'failed', error_code: 'card_declined' });
});
