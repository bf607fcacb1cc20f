import { expect, test } from '@playwright/test';
import { TEST_CARDS, accountOffers, fillCard, retrievePayment } from '@rail/playwright';
import { API, pay } from './support';

/**
 * Manual capture end to end (docs/capture.md): the customer authorizes in the frame on a payment created with
 * capture_method manual (e2e/account-config.json switches manual capture on for the card rail), then the merchant
 * captures from its server with the secret key; the events API shows payment_authorized, then the capture's event.
 */
test.beforeEach(async () => {
  expect(await accountOffers(API, 'card'), 'the e2e server offers card (e2e/account-config.json)').toBe(true);
});

const CARD = { expiry: '12/34', cvc: '123', name: 'Asha Rao' };

async function secretKeyCall(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${API.apiBaseUrl}${path}`, {
    method,
    headers: { 'api-key': API.secretKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function eventTypes(paymentId: string): Promise<string[]> {
  const { status, json } = await secretKeyCall('GET', `/events?object_id=${encodeURIComponent(paymentId)}`);
  expect(status).toBe(200);
  return (json['data'] as { event_type: string; created: string }[])
    .sort((a, b) => a.created.localeCompare(b.created))
    .map((event) => event.event_type);
}

test('authorize in the frame, capture from the server: amount_received and the events follow', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500&capture_method=manual');
  await fillCard(page, { number: TEST_CARDS.success, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe('requires_capture');
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'requires_capture', amount_capturable: 2500, amount_received: null, capture_method: 'manual' });
  expect(await eventTypes(paymentId)).toEqual(['payment_authorized']);

  const captured = await secretKeyCall('POST', `/payments/${paymentId}/capture`, {});
  expect(captured.status, JSON.stringify(captured.json)).toBe(200);
  expect(captured.json).toMatchObject({ status: 'succeeded', amount_received: 2500, amount_capturable: 0 });
  expect(await retrievePayment(API, paymentId)).toMatchObject({ status: 'succeeded', amount_received: 2500 });
  expect(await eventTypes(paymentId)).toEqual(['payment_authorized', 'payment_succeeded']);

  // Captured once: a second capture is refused with the error envelope and moves nothing.
  const again = await secretKeyCall('POST', `/payments/${paymentId}/capture`, {});
  expect(again.status).toBe(400);
  expect(again.json).toMatchObject({ error: { code: 'ERR_4003' } });
});

test('a partial capture of a manual authorization releases the rest (partially_captured)', async ({ page }) => {
  await page.goto('/checkout.html?currency=EUR&amount=2500&capture_method=manual');
  await fillCard(page, { number: TEST_CARDS.success, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe('requires_capture');
  const captured = await secretKeyCall('POST', `/payments/${paymentId}/capture`, { amount_to_capture: 1000 });
  expect(captured.status, JSON.stringify(captured.json)).toBe(200);
  expect(captured.json).toMatchObject({ status: 'partially_captured', amount_received: 1000, amount_capturable: 0 });
  expect(await eventTypes(paymentId)).toEqual(['payment_authorized', 'payment_captured']);
});
