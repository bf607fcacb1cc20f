/**
 * The @rail/playwright fixture as a merchant's suite uses it: each worker starts its own embedded Rail
 * (@rail/server, built package), the test creates a payment with `rail.createPayment()` and drives a checkout page
 * that loads the runtime from `rail.jsUrl`. The page comes from a tiny shop server of this file (a loopback origin:
 * Chromium refuses a loopback script to a page that page.route invents), so nothing else of the e2e stack is involved.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEST_CARDS, TEST_VPAS, expect, fillCard, fillUpi, retrievePayment, test, waitForPaymentStatus, type RailFixture } from '@rail/playwright';

/** The shop: GET /checkout/{n} answers the n-th page this file registered. */
const pages: string[] = [];
let shop: Server;
let shopUrl: string;
test.beforeAll(async () => {
  shop = createServer((req, res) => {
    const page = pages[Number(/^\/checkout\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1)];
    if (page === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => shop.close(() => resolve())));

function checkoutPage(rail: RailFixture, clientSecret: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${rail.jsUrl}/v1/"></script></head><body>
<form id="checkout"><div id="payment"></div><button id="pay" type="submit" disabled>Pay</button></form><output id="result"></output>
<script type="module">
  const rail = Rail(${JSON.stringify(rail.publishableKey)});
  const elements = rail.elements({ clientSecret: ${JSON.stringify(clientSecret)} });
  const element = elements.create('payment');
  element.on('ready', () => { document.querySelector('#pay').disabled = false; });
  element.mount('#payment');
  document.querySelector('#checkout').addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = await rail.confirmPayment({ elements, confirmParams: { return_url: location.href }, redirect: 'if_required' });
    document.querySelector('#result').textContent = result.error ? 'error:' + result.error.code : result.payment.status;
  });
</script></body></html>`;
}

async function openCheckout(page: import('@playwright/test').Page, rail: RailFixture, body?: Record<string, unknown>): Promise<string> {
  const payment = await rail.createPayment(body);
  pages.push(checkoutPage(rail, payment.client_secret));
  await page.goto(`${shopUrl}/checkout/${pages.length - 1}`);
  return payment.payment_id;
}

test('the fixture hands each test a running Rail: its URLs and test keys', async ({ rail }) => {
  expect(rail.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(rail.secretKey).toMatch(/^rail_full_test_/);
  expect(rail.publishableKey).toMatch(/^rail_open_test_/);
  expect((await fetch(`${rail.baseUrl}/health`)).status).toBe(200);
  await expect(rail.createPayment({ amount: -1, currency: 'INR' })).rejects.toThrow(/POST \/payments answered 400/);
});

test('a UPI checkout against the embedded server succeeds', async ({ page, rail }) => {
  const paymentId = await openCheckout(page, rail);
  await fillUpi(page, TEST_VPAS.success);
  await page.locator('#pay').click();
  await expect(page.locator('#result')).toHaveText('succeeded');
  expect((await retrievePayment(rail.access, paymentId)).status).toBe('succeeded');
});

test('a card checkout against the embedded server succeeds (the default account has the card simulator)', async ({ page, rail }) => {
  const paymentId = await openCheckout(page, rail, { amount: 2500, currency: 'USD' });
  await fillCard(page, { number: TEST_CARDS.success, expiry: '12/34', cvc: '123', name: 'Asha Rao' });
  await page.locator('#pay').click();
  await expect(page.locator('#result')).toHaveText('succeeded');
  await waitForPaymentStatus(rail.access, paymentId, 'succeeded');
});
