import { expect, test, type Page } from '@playwright/test';
import { TEST_CARDS, accountOffers, completeThreeDsChallenge, fillCard, railFrame, retrievePayment, waitForPaymentStatus } from '@rail/playwright';
import { API, pay, shown } from './support';

/**
 * 3-D Secure through the real frame, with the simulator's 3DS cards (docs/simulator.md): a frictionless card that
 * authenticates without leaving the page, a challenged card completed or failed on the simulator's page (the top
 * window goes there and back to return_url), and a card whose authentication the issuer rejects.
 */
test.beforeEach(async () => {
  expect(await accountOffers(API, 'card'), 'the e2e server offers card (e2e/account-config.json)').toBe(true);
});

const CARD = { expiry: '12/34', cvc: '123', name: 'Asha Rao' };
const CHECKOUT = '/checkout.html?currency=EUR&amount=2500';
const { threeDsFrictionless: THREE_DS_FRICTIONLESS, threeDsRejected: THREE_DS_REJECTED } = TEST_CARDS;

test('a frictionless 3DS card succeeds in the frame without leaving the checkout', async ({ page }) => {
  await page.goto(CHECKOUT);
  await fillCard(page, { number: THREE_DS_FRICTIONLESS, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe('succeeded');
  expect(new URL(page.url()).pathname).toBe('/checkout.html');
  await waitForPaymentStatus(API, paymentId, 'succeeded');
  expect(await retrievePayment(API, paymentId)).toMatchObject({ amount_received: 2500, connector: 'card_simulator', next_action: null });
});

test('a card whose 3DS authentication the issuer rejects fails in the frame, with no challenge', async ({ page }) => {
  await page.goto(CHECKOUT);
  await fillCard(page, { number: THREE_DS_REJECTED, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe(shown('failed'));
  await expect(railFrame(page).locator('#rail-notice')).toContainText('The payment failed.');
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'failed', error_code: 'authentication_failed' });
});

for (const outcome of ['complete', 'fail'] as const) {
  test(`3DS challenge ${outcome === 'complete' ? 'completed' : 'failed'}: the top window goes to the challenge and back to return_url`, async ({ page }) => {
    await page.goto(CHECKOUT);
    // The fixture assigns window.__rail after creating the payment: wait for it rather than racing it.
    const handle = await page.waitForFunction(() => (window as never as { __rail?: { paymentId: string } }).__rail?.paymentId);
    const paymentId = String(await handle.jsonValue());
    await fillCard(page, { number: TEST_CARDS.threeDsChallenge, ...CARD });
    await page.locator('#pay').click();
    await completeThreeDsChallenge(page, outcome);
    const expected = outcome === 'complete' ? 'succeeded' : 'failed';
    const url = new URL(page.url());
    expect(url.pathname).toBe('/return.html');
    expect(url.searchParams.get('payment_id')).toBe(paymentId);
    await expect(page.locator('#query-status')).toHaveText(expected);
    await expect(page.locator('#server-status')).toHaveText(expected);
    await waitForPaymentStatus(API, paymentId, expected);
    if (outcome === 'fail') expect(await retrievePayment(API, paymentId)).toMatchObject({ error_code: 'authentication_failed' });
  });
}

/**
 * External 3DS: the merchant creates the payment with request_external_three_ds_authentication, confirm answers
 * next_action three_ds_invoke, and the frame authenticates (POST .../3ds/authentication) and, on a frictionless
 * answer, authorizes (POST .../complete_authorize) with the client_secret, never seeing a card number again.
 */
const EXTERNAL = `${CHECKOUT}&request_external_three_ds_authentication=true`;

/** The API paths the frame posted to for this payment's card, in order (the wallet session tokens left out). */
function postedPaths(page: Page): string[] {
  const paths: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && request.url().startsWith(API.apiBaseUrl) && path !== '/payments/session_tokens') paths.push(path.replace(/pay_\w+/, '{id}'));
  });
  return paths;
}

test('external 3DS, frictionless: the frame authenticates, then completes the authorization', async ({ page }) => {
  const paths = postedPaths(page);
  await page.goto(EXTERNAL);
  await fillCard(page, { number: THREE_DS_FRICTIONLESS, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe('succeeded');
  expect(paths).toEqual(['/vault/tokens', '/payments/{id}/confirm', '/payments/{id}/3ds/authentication', '/payments/{id}/complete_authorize']);
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'succeeded', amount_received: 2500, next_action: null });
});

test('external 3DS, rejected by the issuer (N): failed, with no authorization', async ({ page }) => {
  const paths = postedPaths(page);
  await page.goto(EXTERNAL);
  await fillCard(page, { number: THREE_DS_REJECTED, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe(shown('failed'));
  expect(paths).not.toContain('/payments/{id}/complete_authorize');
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'failed', error_code: 'authentication_failed' });
});

test('external 3DS, challenged (C): the top window goes to the challenge and back to return_url', async ({ page }) => {
  await page.goto(`${EXTERNAL}&force_3ds_challenge=true`);
  const handle = await page.waitForFunction(() => (window as never as { __rail?: { paymentId: string } }).__rail?.paymentId);
  const paymentId = String(await handle.jsonValue());
  await fillCard(page, { number: THREE_DS_FRICTIONLESS, ...CARD });
  await page.locator('#pay').click();
  await completeThreeDsChallenge(page, 'complete');
  expect(new URL(page.url()).pathname).toBe('/return.html');
  await expect(page.locator('#server-status')).toHaveText('succeeded');
  await waitForPaymentStatus(API, paymentId, 'succeeded');
});
