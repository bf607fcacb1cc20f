/**
 * The running server resolves waiting payments by itself: a pending UPI collect's payment_succeeded webhook arrives
 * although nobody reads the payment (main.ts runs core/payments/sweep-waiting-payments.ts every RAIL_PAYMENT_SYNC_INTERVAL_MS).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PENDING_RESOLVE_AFTER_MS } from './rails/simulator/upi-simulator';
import { callApi, startServer, type ServerProcess } from './test-support/server-process';
import { startWebhookReceiver, type WebhookReceiver } from './test-support/webhook-receiver';

const WEBHOOK_SECRET = `whsec_${Buffer.from('payment-sync-webhook-secret-32by').toString('base64')}`;

describe('waiting payments resolve without a read (main.ts)', () => {
  let server: ServerProcess;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(WEBHOOK_SECRET);
    server = await startServer({
      dataDir: mkdtempSync(join(tmpdir(), 'rail-payment-sync-')),
      env: { RAIL_WEBHOOK_URL: receiver.url, RAIL_WEBHOOK_SECRET: WEBHOOK_SECRET, RAIL_PAYMENT_SYNC_INTERVAL_MS: '250' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  test('a pending UPI collect sends payment_succeeded about 10 s after confirm, with no GET in between', async () => {
    const created = await callApi(server.baseUrl, 'POST', '/payments', { amount: 2_500, currency: 'INR' });
    const paymentId = String(created.body['payment_id']);
    const confirmed = await callApi(server.baseUrl, 'POST', `/payments/${paymentId}/confirm`, {
      payment_method: 'upi',
      payment_method_type: 'upi_collect',
      payment_method_data: { upi: { upi_collect: { vpa_id: 'pending@upi' } } },
    });
    expect(confirmed.body['status']).toBe('requires_customer_action');
    const succeeded = () =>
      receiver.deliveries.find((delivery) => delivery.event?.event_type === 'payment_succeeded' && delivery.event.content.object['payment_id'] === paymentId);
    const deadline = Date.now() + PENDING_RESOLVE_AFTER_MS + 15_000;
    while (succeeded() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(succeeded()?.verifyError).toBeUndefined();
    expect(succeeded()?.event?.content.object).toMatchObject({ payment_id: paymentId, status: 'succeeded', amount_received: 2_500 });
  }, 40_000);
});
