import { expect, test } from '@playwright/test';
import {
  accountOffers,
  completeBankTransfer,
  completeCryptoPayment,
  fillMobileMoney,
  fillUpi,
  railFrame,
  retrievePayment,
  selectPaymentMethod,
  TEST_MSISDNS,
  waitForPaymentStatus,
} from '@rail/playwright';
import { API, pay, shown } from './support';

/** Crypto (EUR/USD/GBP) and bank transfer / mobile money (KES/GHS/TZS/UGX) simulators are switched on by e2e/account-config.json. */

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
      await expect(page.locator('#result')).toHaveText(new RegExp(outcome === 'pay' ? '^succeeded$' : '^error:payment_failed:(failed|cancelled)$'), { timeout: 30_000 });
      const paymentId = (await page.locator('#result').getAttribute('data-payment-id'))!;
      if (outcome === 'pay') await waitForPaymentStatus(API, paymentId, expected);
    });
  }
});

test.describe('bank transfer / mobile money', () => {
  test.beforeEach(async () => {
    expect(await accountOffers(API, 'bank_transfer'), 'the e2e server offers bank_transfer (e2e/account-config.json)').toBe(true);
    expect(await accountOffers(API, 'mobile_payment'), 'the e2e server offers mobile money (e2e/account-config.json)').toBe(true);
  });

  for (const outcome of ['pay', 'fail'] as const) {
    test(`bank transfer: the frame shows the instructions with the amount in KES; the customer's ${outcome} settles the payment`, async ({ page }) => {
      await page.goto('/checkout.html?currency=KES&amount=150000');
      await selectPaymentMethod(page, 'Bank transfer');
      await page.locator('#pay').click();
      const screen = railFrame(page).getByTestId('bank-transfer-screen');
      await expect(screen).toBeVisible({ timeout: 15_000 });
      await expect(screen).toContainText(/Amount due\s*KES\s1,500\.00/);
      await expect(screen).toContainText('Reference');
      await completeBankTransfer(page, outcome);
      const status = outcome === 'pay' ? 'succeeded' : 'failed';
      await expect(page.locator('#result')).toHaveText(shown(status), { timeout: 15_000 });
      const payment = await retrievePayment(API, (await page.locator('#result').getAttribute('data-payment-id'))!);
      expect(payment).toMatchObject(outcome === 'pay' ? { status, amount_received: 150_000 } : { status, error_code: 'bank_transfer_expired' });
    });
  }

  for (const outcome of ['pay', 'fail'] as const) {
    test(`mobile money: the customer types their number; their ${outcome} on the phone settles the payment`, async ({ page }) => {
      await page.goto('/checkout.html?currency=UGX&amount=50000');
      await fillMobileMoney(page, '+256 700 000 001');
      await page.locator('#pay').click();
      const screen = railFrame(page).getByTestId('bank-transfer-screen');
      await expect(screen).toBeVisible({ timeout: 15_000 });
      await expect(screen).toContainText('Approve the prompt on your phone');
      await expect(screen).toContainText('Business number');
      await completeBankTransfer(page, outcome);
      const status = outcome === 'pay' ? 'succeeded' : 'failed';
      await expect(page.locator('#result')).toHaveText(shown(status), { timeout: 15_000 });
      const payment = await retrievePayment(API, (await page.locator('#result').getAttribute('data-payment-id'))!);
      expect(payment).toMatchObject({ status, payment_method: 'mobile_payment', payment_method_type: 'momo' });
      if (outcome === 'fail') expect(payment).toMatchObject({ error_code: 'mobile_money_rejected' });
    });
  }

  test('mobile money: the simulated provider rejects a number ending in 0002 by itself (about 30 s after confirm)', async ({ page }) => {
    test.setTimeout(75_000);
    await page.goto('/checkout.html?currency=TZS&amount=20000');
    await fillMobileMoney(page, TEST_MSISDNS.failure);
    await page.locator('#pay').click();
    await expect(railFrame(page).getByTestId('bank-transfer-screen')).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('#result')).toHaveText(shown('failed'), { timeout: 60_000 });
    const payment = await retrievePayment(API, (await page.locator('#result').getAttribute('data-payment-id'))!);
    expect(payment).toMatchObject({ status: 'failed', error_code: 'mobile_money_rejected' });
  });

  test('mobile money: a malformed number is refused in the frame with ERR_6005 and the field marked invalid', async ({ page }) => {
    await page.goto('/checkout.html?currency=KES&amount=150000');
    await fillMobileMoney(page, '0712 34');
    expect((await pay(page)).text).toBe('error:ERR_6005');
    const field = railFrame(page).getByLabel('Mobile money number', { exact: true });
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(railFrame(page).getByText('Enter a phone number of 8 to 15 digits.')).toBeVisible();
  });
});

test('an invalid VPA is refused in the frame with ERR_6005 (a resolved error, never a rejection)', async ({ page }) => {
  await page.goto('/checkout.html');
  await fillUpi(page, 'not-a-vpa');
  expect((await pay(page)).text).toBe('error:ERR_6005');
});
