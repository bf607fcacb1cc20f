/**
 * Webhook endpoints operators register per mode (docs/webhooks.md "Endpoints"): a secret shown once, deliveries to
 * the registered URL signed with it, a rotation that signs with both secrets for its overlap, disable and enable,
 * the test event, deletion. A real local receiver; SQLite and PostgreSQL.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Engine } from '../../../storage/database';
import { totpCode, totpStep } from '../../../core/auth/totp';
import { WEBHOOK_SECRET_OVERLAP_MS } from '../../../core/webhook-endpoints/rotate-webhook-secret';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';
import { defaultWebhookDeliveryConfig } from '../../../webhooks/delivery';
import { WebhookDispatcher } from '../../../webhooks/dispatcher';
import { signHyperswitch512, signStandardWebhook } from '../../../webhooks/signing';
import { USER_AGENT } from '../../../webhooks/delivery';
import { DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT } from '../../../webhooks/endpoint-shares';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

async function startReceiver(): Promise<{ url: string; received: Received[]; status: { code: number }; close(): Promise<void> }> {
  const received: Received[] = [];
  const status = { code: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status.code);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, status, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A receiver that holds every answer while `holding`, until release(), and answers 200 at once after. */
async function startHoldingReceiver(): Promise<{ url: string; held: ServerResponse[]; release(): void; close(): Promise<void> }> {
  const held: ServerResponse[] = [];
  let holding = true;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => (holding ? held.push(res) : res.writeHead(200).end('ok')));
  });
  const release = () => {
    holding = false;
    for (const res of held) if (!res.headersSent) res.writeHead(200).end('ok');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    held,
    release,
    close: () => {
      release();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The v1 signatures of a delivery, in the order sent. */
const signaturesOf = (delivery: Received) => String(delivery.headers['webhook-signature']).split(' ');
const expectedSignature = (secret: string, delivery: Received) =>
  signStandardWebhook(secret, String(delivery.headers['webhook-id']), Number(delivery.headers['webhook-timestamp']), delivery.body);

forEachEngine('webhook endpoints managed by operators', (engine: Engine) => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dispatcher: WebhookDispatcher;
  let session: { key: null; headers: { authorization: string } };

  beforeAll(async () => {
    h = await createHarness(engine);
    receiver = await startReceiver();
    dispatcher = new WebhookDispatcher({ store: h.store, clock: h.clock }, defaultWebhookDeliveryConfig({ random: () => 0 }));
    const { email, password, totpSecret } = h.boot.createdOperator!;
    const { session_token } = await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }));
    session = { key: null, headers: { authorization: `Bearer ${session_token}` } };
    await expectOk(await apiRequest(h, 'POST', '/v1/sessions/verify', { ...session, body: { code: totpCode(totpSecret, totpStep(h.clock.now())) } }));
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** A new session with a fresh step-up (the window is minutes and a session hours; the tests move the clock by a day). */
  const stepUp = async () => {
    h.clock.advance(30_000);
    const { email, password } = h.boot.createdOperator!;
    const { session_token } = await expectOk<{ session_token: string }>(await apiRequest(h, 'POST', '/v1/sessions', { key: null, body: { email, password } }));
    session.headers.authorization = `Bearer ${session_token}`;
    await expectOk(await apiRequest(h, 'POST', '/v1/sessions/verify', { ...session, body: { code: totpCode(h.boot.createdOperator!.totpSecret, totpStep(h.clock.now())) } }));
  };
  const pay = async () => {
    const payment = await expectOk<{ payment_id: string }>(
      await apiRequest(h, 'POST', '/payments', { body: { amount: 1000, currency: 'INR', confirm: true, payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } } }),
    );
    await dispatcher.drain();
    return receiver.received.filter((delivery) => delivery.body.includes(payment.payment_id));
  };

  test('register, deliver, rotate with overlap, disable, test, delete', async () => {
    await expectApiError(await apiRequest(h, 'POST', '/v1/webhook-endpoints', { body: { url: receiver.url } }), 'ERR_1019');
    await expectApiError(await apiRequest(h, 'POST', '/v1/webhook-endpoints', { ...session, body: { mode: 'live', url: receiver.url } }), 'ERR_2003', 'url');
    await expectApiError(await apiRequest(h, 'POST', '/v1/webhook-endpoints', { ...session, body: { url: 'ftp://example.com/hooks' } }), 'ERR_2003', 'url');
    const created = await expectOk<{ endpoint_id: string; secret: string; mode: string; enabled: boolean }>(
      await apiRequest(h, 'POST', '/v1/webhook-endpoints', { ...session, body: { url: receiver.url } }),
    );
    expect(created).toMatchObject({ mode: 'test', enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    await expectApiError(await apiRequest(h, 'POST', '/v1/webhook-endpoints', { ...session, body: { url: receiver.url } }), 'ERR_4089', 'mode');
    const listed = await expectOk<{ data: Record<string, unknown>[] }>(await apiRequest(h, 'GET', '/v1/webhook-endpoints', session));
    expect(listed.data).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    // Deliveries go to the registered URL, signed with its secret (both headers).
    const [first] = await pay();
    expect(first).toBeDefined();
    expect(signaturesOf(first!)).toEqual([expectedSignature(created.secret, first!)]);
    expect(first!.headers['x-webhook-signature-512']).toBe(signHyperswitch512(created.secret, first!.body));

    // Rotation: the new secret is shown once; for the overlap both sign, new first; then the new one only.
    await stepUp();
    const rotated = await expectOk<{ secret: string; previous_secret_expires_at: string }>(
      await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/rotate-secret`, session),
    );
    expect(rotated.secret).not.toBe(created.secret);
    expect(new Date(rotated.previous_secret_expires_at).getTime() - h.clock.now().getTime()).toBe(WEBHOOK_SECRET_OVERLAP_MS);
    // A second rotation inside the overlap would drop the secret promised for the day.
    await expectApiError(await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/rotate-secret`, session), 'ERR_4093');
    const [during] = await pay();
    expect(signaturesOf(during!)).toEqual([expectedSignature(rotated.secret, during!), expectedSignature(created.secret, during!)]);
    expect(during!.headers['x-webhook-signature-512']).toBe(signHyperswitch512(rotated.secret, during!.body));
    h.clock.advance(WEBHOOK_SECRET_OVERLAP_MS);
    const [after] = await pay();
    expect(signaturesOf(after!)).toEqual([expectedSignature(rotated.secret, after!)]);

    // A URL change racing a rotation never loses the secret the rotation answered.
    await stepUp();
    const [, raced] = await Promise.all([
      apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}`, { ...session, body: { url: `${receiver.url}?v=2` } }),
      apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/rotate-secret`, session),
    ]);
    const current = (await expectOk<{ secret: string }>(raced)).secret;
    const stored = await h.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret', 'url']).executeTakeFirstOrThrow();
    expect(stored).toEqual({ secret: current, previous_secret: rotated.secret, url: `${receiver.url}?v=2` });
    h.clock.advance(WEBHOOK_SECRET_OVERLAP_MS);

    // Disabled: the mode's events are recorded as no_endpoint; enabled again, they flow.
    await stepUp();
    await expectOk(await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}`, { ...session, body: { enabled: false } }));
    expect(await pay()).toHaveLength(0);
    const events = await expectOk<{ data: { delivery_status: string }[] }>(await apiRequest(h, 'GET', '/events?limit=1'));
    expect(events.data[0]!.delivery_status).toBe('no_endpoint');
    await expectOk(await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}`, { ...session, body: { enabled: true } }));
    expect(await pay()).toHaveLength(1);

    // The test event: signed like the real ones, and the receiver's answer reported.
    const result = await expectOk<{ delivered: boolean; status_code: number }>(await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/test`, session));
    expect(result).toMatchObject({ delivered: true, status_code: 200 });
    const testDelivery = receiver.received.at(-1)!;
    expect(JSON.parse(testDelivery.body)).toMatchObject({ event_type: 'webhook_endpoint.test', mode: 'test', account_id: h.boot.account.accountId });
    expect(signaturesOf(testDelivery)).toEqual([expectedSignature(current, testDelivery)]);
    // The headers of a real delivery, the user agent included (docs/webhooks.md).
    expect(testDelivery.headers['user-agent']).toBe(USER_AGENT);
    expect(receiver.received.at(-2)!.headers['user-agent']).toBe(USER_AGENT);
    receiver.status.code = 500;
    expect(await expectOk(await apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/test`, session))).toMatchObject({ delivered: false, status_code: 500 });
    receiver.status.code = 200;

    // Deleted: no endpoint for the mode (the harness sets none in the environment).
    await expectOk(await apiRequest(h, 'DELETE', `/v1/webhook-endpoints/${created.endpoint_id}`, session));
    expect(await pay()).toHaveLength(0);
    await expectApiError(await apiRequest(h, 'DELETE', `/v1/webhook-endpoints/${created.endpoint_id}`, session), 'ERR_4092');
    const subjects = (await h.db.selectFrom('security_emails').select('subject').execute()).map((row) => row.subject);
    expect(subjects).toEqual(expect.arrayContaining(['[Rail] New test webhook endpoint', '[Rail] test webhook secret rotated', '[Rail] test webhook endpoint deleted']));
  });

  test("test events take places of the endpoint's share of attempts in flight: past it the next is refused (429 ERR_4290, Retry-After) and sends nothing", async () => {
    const holding = await startHoldingReceiver();
    try {
      await stepUp();
      const created = await expectOk<{ endpoint_id: string }>(await apiRequest(h, 'POST', '/v1/webhook-endpoints', { ...session, body: { url: holding.url } }));
      const testEvent = () => apiRequest(h, 'POST', `/v1/webhook-endpoints/${created.endpoint_id}/test`, session);
      const sent = Array.from({ length: DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT }, testEvent);
      for (let waited = 0; holding.held.length < DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(holding.held).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);

      const refused = await testEvent();
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(String((await expectApiError(refused, 'ERR_4290'))['message'])).toContain('delivery attempts in flight');
      expect(holding.held).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);

      // The held ones end, and give their places back.
      holding.release();
      for (const response of await Promise.all(sent)) expect(await expectOk(response)).toMatchObject({ delivered: true, status_code: 200 });
      expect(await expectOk(await testEvent())).toMatchObject({ delivered: true, status_code: 200 });
      await expectOk(await apiRequest(h, 'DELETE', `/v1/webhook-endpoints/${created.endpoint_id}`, session));
    } finally {
      await holding.close();
    }
  });
});
