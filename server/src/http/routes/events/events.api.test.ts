/**
 * The events API and end-to-end delivery, through app.request() and a real local HTTP receiver (node:http on
 * 127.0.0.1, random port). Runs on SQLite and PostgreSQL (forEachEngine).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReceiver, verifyWebhook } from '../../../../../docs/examples/webhook-receiver.mjs';
import type { EventDetail, EventList } from '../../../../../protocol/api/events';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { Engine } from '../../../storage/database';
import { apiRequest, expectApiError, insertLiveSecretKey, expectOk } from '../../../test-support/api-assertions';
import { createHarness, type Harness } from '../../../test-support/harness';
import { forEachEngine } from '../../../test-support/engines';
import { recordPaymentEvent } from '../../../core/payments/payment-outcome';
import { defaultWebhookDeliveryConfig } from '../../../webhooks/delivery';
import { WebhookDispatcher } from '../../../webhooks/dispatcher';
import { fetchWebhookSender, RESPONSE_EXCERPT_CHARS } from '../../../webhooks/sender';
import { verifyHyperswitch512 } from '../../../webhooks/signing';

type Json = Record<string, unknown>;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver whose answer the test chooses. */
async function startTestReceiver(): Promise<{ url: string; received: Received[]; answer: { status: number; body: string }; close(): Promise<void> }> {
  const state = { received: [] as Received[], answer: { status: 200, body: 'thanks' } };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(state.answer.status, state.answer.status >= 300 && state.answer.status < 400 ? { location: 'http://127.0.0.1:1/' } : {});
      res.end(state.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    get received() {
      return state.received;
    },
    get answer() {
      return state.answer;
    },
    set answer(value) {
      state.answer = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const asHeaders = (headers: IncomingHttpHeaders): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));

forEachEngine('Events API', (engine) => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let dispatcher: WebhookDispatcher;
  let liveSecretKey: string;
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  const setEndpoint = async (url: string | null) => {
    await h.store.accounts.updateAccountSettings(h.boot.account.accountId, { ...h.boot.account.settings, webhook: { url, secret } });
  };

  beforeAll(async () => {
    h = await createHarness(engine);
    // Signatures carry the clock's time; the docs example checks it against the real time.
    h.clock.advance(Date.now() - h.clock.now().getTime());
    receiver = await startTestReceiver();
    await setEndpoint(receiver.url);
    dispatcher = new WebhookDispatcher({ store: h.store, clock: h.clock }, defaultWebhookDeliveryConfig({ random: () => 0 }));
    liveSecretKey = await insertLiveSecretKey(h, { fill: 'W', keyId: 'key_live_for_events_00' });
  });

  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  const request = (method: string, path: string, options: { key?: string | null; body?: unknown } = {}) => apiRequest(h, method, path, options);
  const expectError = expectApiError;
  const ok = expectOk;
  const payUpi = async (vpa: string) =>
    ok<PaymentResponse>(
      await request('POST', '/payments', {
        body: {
          amount: 10_000,
          currency: 'INR',
          confirm: true,
          payment_method: 'upi',
          payment_method_type: 'upi_collect',
          payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } },
        },
      }),
    );
  const eventsOf = async (objectId: string) => (await ok<EventList>(await request('GET', `/events?object_id=${objectId}`))).data;

  let counter = 0;
  const insertEvent = async (overrides: { objectId: string; eventType?: string; createdAt?: Date; mode?: 'test' | 'live' }) => {
    counter += 1;
    const eventId = `evt_api_${engine}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
    const createdAt = overrides.createdAt ?? h.clock.now();
    const eventType = overrides.eventType ?? 'payment_succeeded';
    await h.store.outbox.insertEvent({
      eventId,
      accountId: h.boot.account.accountId,
      mode: overrides.mode ?? 'test',
      eventType,
      objectType: 'payment',
      objectId: overrides.objectId,
      objectVersion: 0,
      createdAt,
      payload: {
        event_id: eventId,
        event_type: eventType,
        created: createdAt.toISOString(),
        account_id: h.boot.account.accountId,
        mode: overrides.mode ?? 'test',
        content: { type: 'payment_details', object: { payment_id: overrides.objectId } },
      },
    });
    return eventId;
  };

  describe(`[${engine}] webhook delivery end to end`, () => {
    test('a payment_succeeded event created through the API reaches a real receiver, signed, with the payment as the API returns it', async () => {
      const payment = await payUpi('success@upi');
      expect(payment.status).toBe('succeeded');
      const [listed] = await eventsOf(payment.payment_id);
      expect(listed).toMatchObject({ event_type: 'payment_succeeded', delivery_status: 'pending', attempt_count: 0 });
      const eventId = listed?.event_id ?? '';

      await dispatcher.drain();
      const deliveries = receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
      expect(deliveries).toHaveLength(1);
      const [delivery] = deliveries;
      const headers = asHeaders(delivery!.headers);
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toMatch(/^Rail-Webhooks\//);
      // The docs example receiver's verify function, at the real time, with its tolerance window.
      const envelope = verifyWebhook(secret, headers, delivery!.body) as Json;
      expect(verifyHyperswitch512(secret, delivery!.body, headers['x-webhook-signature-512'])).toBe(true);
      expect(Object.keys(envelope).sort()).toEqual(['account_id', 'content', 'created', 'event_id', 'event_type', 'mode']);
      expect(envelope).toMatchObject({ event_id: eventId, event_type: 'payment_succeeded', account_id: h.boot.account.accountId, mode: 'test' });
      const retrieved = await ok<PaymentResponse>(await request('GET', `/payments/${payment.payment_id}`));
      expect(envelope['content']).toEqual({ type: 'payment_details', object: retrieved });

      const detail = await ok<EventDetail>(await request('GET', `/events/${eventId}`));
      expect(detail).toMatchObject({ event_id: eventId, delivery_status: 'delivered', attempt_count: 1, next_attempt_at: null, payload: envelope });
      expect(detail.attempts).toEqual([
        expect.objectContaining({ attempt_number: 1, trigger: 'scheduled', url: receiver.url, status_code: 200, error: null, response_body: 'thanks', succeeded: true }),
      ]);
      const attempts = await ok<{ data: unknown[] }>(await request('GET', `/events/${eventId}/attempts`));
      expect(attempts.data).toEqual(detail.attempts);

      // Redelivery: same event_id and body, a new attempt.
      const retried = await ok<EventDetail>(await request('POST', `/events/${eventId}/retry`));
      expect(retried).toMatchObject({ event_id: eventId, delivery_status: 'delivered', attempt_count: 2 });
      expect(retried.attempts.at(-1)).toMatchObject({ attempt_number: 2, trigger: 'manual', status_code: 200, succeeded: true });
      const again = receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
      expect(again).toHaveLength(2);
      expect(again[1]?.body).toBe(delivery?.body);
      expect(verifyWebhook(secret, asHeaders(again[1]!.headers), again[1]!.body)).toEqual(envelope);
    });

    test('the event shows the state that caused it (snapshot), not the payment as it is later', async () => {
      const payment = await payUpi('pending@upi');
      expect(payment.status).toBe('requires_customer_action');
      const [event] = await eventsOf(payment.payment_id);
      const detail = await ok<EventDetail>(await request('GET', `/events/${event?.event_id}`));
      expect(detail.event_type).toBe('action_required');
      expect((detail.payload.content.object as Json)['status']).toBe('requires_customer_action');
    });

    test('a payment that needs action twice sends action_required twice; the same change recorded twice is one event', async () => {
      const payment = await payUpi('pending@upi');
      const scope = { accountId: h.boot.account.accountId, mode: 'test' as const };
      const first = (await h.store.payments.findPayment(scope, payment.payment_id))!;
      expect(first.status).toBe('requires_customer_action');
      // A second step for the customer (another redirect): the payment changes, still requires_customer_action.
      const now = h.clock.now();
      const second = await h.store.transaction(async (tx) => {
        const next = (await tx.payments.updatePaymentIfVersion(scope, first.paymentId, first.version, { railState: { step: 'second' }, updatedAt: now }))!;
        await recordPaymentEvent(h.core, tx, next, now);
        return next;
      });
      // The same two changes recorded again (a retried write): nothing new.
      await h.store.transaction(async (tx) => {
        await recordPaymentEvent(h.core, tx, first, now);
        await recordPaymentEvent(h.core, tx, second, now);
      });
      const events = await eventsOf(payment.payment_id);
      expect(events.map((event) => event.event_type)).toEqual(['action_required', 'action_required']);
      expect(events.every((event) => event.object_id === payment.payment_id)).toBe(true);
    });

    test('the docs example receiver (its own server) accepts a delivery and de-duplicates redeliveries', async () => {
      const seen: Json[] = [];
      const server = await startReceiver({ secret, port: 0, onEvent: (event: Json) => seen.push(event) });
      const { port } = server.address() as AddressInfo;
      try {
        await setEndpoint(`http://127.0.0.1:${port}/`);
        const payment = await payUpi('success@upi');
        await dispatcher.drain();
        const [event] = await eventsOf(payment.payment_id);
        expect(event).toMatchObject({ delivery_status: 'delivered' });
        const retried = await ok<EventDetail>(await request('POST', `/events/${event?.event_id}/retry`));
        expect(retried.attempts.map((a) => a.status_code)).toEqual([204, 204]);
        expect(seen.filter((e) => e['event_id'] === event?.event_id)).toHaveLength(1);
      } finally {
        await setEndpoint(receiver.url);
        await new Promise((resolve) => server.close(resolve));
      }
    });

    test('a failing receiver: 500 is recorded and the event stays pending; a 3xx is not followed; a manual retry after recovery delivers', async () => {
      const objectId = 'pay_failing_receiver';
      const eventId = await insertEvent({ objectId });
      receiver.answer = { status: 500, body: 'x'.repeat(5000) };
      await dispatcher.drain();
      let detail = await ok<EventDetail>(await request('GET', `/events/${eventId}`));
      expect(detail).toMatchObject({ delivery_status: 'pending', attempt_count: 1, failure_reason: null });
      expect(detail.next_attempt_at).toBe(new Date(h.clock.now().getTime() + 60_000).toISOString());
      expect(detail.attempts[0]).toMatchObject({ status_code: 500, succeeded: false });
      expect(detail.attempts[0]?.response_body).toHaveLength(RESPONSE_EXCERPT_CHARS);

      receiver.answer = { status: 302, body: '' };
      detail = await ok<EventDetail>(await request('POST', `/events/${eventId}/retry`));
      expect(detail.attempts.at(-1)).toMatchObject({ trigger: 'manual', status_code: 302, succeeded: false });
      expect(detail).toMatchObject({ delivery_status: 'pending', attempt_count: 2 });

      receiver.answer = { status: 200, body: 'thanks' };
      detail = await ok<EventDetail>(await request('POST', `/events/${eventId}/retry`));
      expect(detail).toMatchObject({ delivery_status: 'delivered', attempt_count: 3, next_attempt_at: null });
      expect(new Set(receiver.received.filter((r) => r.headers['webhook-id'] === eventId).map((r) => r.body)).size).toBe(1);
    });

    test('the real sender reports a refused connection and a timeout without an HTTP status', async () => {
      const closed = await startTestReceiver();
      await closed.close();
      await expect(fetchWebhookSender.send({ url: closed.url, headers: {}, body: '{}', timeoutMs: 2000 })).rejects.toMatchObject({
        cause: { code: 'ECONNREFUSED' },
      });
      const { describeSendError } = await import('../../../webhooks/sender');
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
        const error = await fetchWebhookSender.send({ url, headers: {}, body: '{}', timeoutMs: 100 }).catch((e: unknown) => e);
        expect(describeSendError(error)).toBe('timeout');
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }

      const eventId = await insertEvent({ objectId: 'pay_refused' });
      await setEndpoint(closed.url);
      try {
        const detail = await ok<EventDetail>(await request('POST', `/events/${eventId}/retry`));
        expect(detail.attempts.at(-1)).toMatchObject({ status_code: null, error: 'ECONNREFUSED', succeeded: false, response_body: null });
      } finally {
        await setEndpoint(receiver.url);
      }
    });
  });

  describe(`[${engine}] events API`, () => {
    test('GET /events lists newest first, filters, and pages with cursor', async () => {
      const base = h.clock.now().getTime();
      const objectId = `pay_list_${engine}`;
      const ids: string[] = [];
      // One event per (object, event type): the outbox keeps each pair once.
      const types = ['payment_authorized', 'action_required', 'payment_failed', 'payment_succeeded', 'payment_cancelled'];
      for (const [i, eventType] of types.entries()) {
        ids.push(await insertEvent({ objectId, eventType, createdAt: new Date(base - 1000 * (5 - i)) }));
      }
      await insertEvent({ objectId: 'pay_other' });
      const newestFirst = [...ids].reverse();

      const all = await ok<EventList>(await request('GET', `/events?object_id=${objectId}`));
      expect(all.data.map((e) => e.event_id)).toEqual(newestFirst);
      expect(all).toMatchObject({ has_more: false, next_cursor: null });

      const page1 = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&limit=2`));
      expect(page1.data.map((e) => e.event_id)).toEqual(newestFirst.slice(0, 2));
      expect(page1).toMatchObject({ has_more: true, next_cursor: newestFirst[1] });
      const page2 = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&limit=2&cursor=${page1.next_cursor}`));
      expect(page2.data.map((e) => e.event_id)).toEqual(newestFirst.slice(2, 4));
      const page3 = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&limit=2&cursor=${page2.next_cursor}`));
      expect(page3.data.map((e) => e.event_id)).toEqual(newestFirst.slice(4));
      expect(page3).toMatchObject({ has_more: false, next_cursor: null });

      const failed = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&event_type=payment_failed`));
      expect(failed.data.map((e) => e.event_id)).toEqual([ids[2]]);

      receiver.answer = { status: 200, body: 'ok' };
      await dispatcher.drain();
      const delivered = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&delivery_status=delivered`));
      expect(delivered.data).toHaveLength(5);
      const pending = await ok<EventList>(await request('GET', `/events?object_id=${objectId}&delivery_status=pending`));
      expect(pending.data).toHaveLength(0);

      const everything = await ok<EventList>(await request('GET', '/events?limit=100'));
      expect(everything.data.length).toBeGreaterThan(6);
      const created = everything.data.map((e) => e.created);
      expect([...created].sort().reverse()).toEqual(created);
    });

    test('an event without an endpoint is no_endpoint; retry answers ERR_4051 until one is configured', async () => {
      await setEndpoint(null);
      try {
        const eventId = await insertEvent({ objectId: 'pay_no_endpoint' });
        await dispatcher.drain();
        expect(await ok<EventDetail>(await request('GET', `/events/${eventId}`))).toMatchObject({ delivery_status: 'no_endpoint', attempts: [] });
        await expectError(await request('POST', `/events/${eventId}/retry`), 'ERR_4051');
        await setEndpoint(receiver.url);
        receiver.answer = { status: 200, body: 'ok' };
        expect(await ok<EventDetail>(await request('POST', `/events/${eventId}/retry`))).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
      } finally {
        await setEndpoint(receiver.url);
      }
    });

    test('retry while an attempt holds the event answers ERR_4052', async () => {
      const eventId = await insertEvent({ objectId: 'pay_leased' });
      const now = h.clock.now();
      const claimed = await h.store.webhooks.claimEvent({ accountId: h.boot.account.accountId, mode: 'test' }, eventId, now, new Date(now.getTime() + 60_000), 'lease_busy');
      expect(claimed).toBeDefined();
      await expectError(await request('POST', `/events/${eventId}/retry`), 'ERR_4052');
      await h.store.webhooks.releaseEvent(eventId, 'lease_busy');
    });

    test('unknown events answer ERR_4050 on every event route; a live key does not see test events', async () => {
      for (const [method, path] of [
        ['GET', '/events/evt_unknown'],
        ['GET', '/events/evt_unknown/attempts'],
        ['POST', '/events/evt_unknown/retry'],
      ] as const) {
        await expectError(await request(method, path), 'ERR_4050');
      }
      const testEvent = await insertEvent({ objectId: 'pay_mode' });
      await expectError(await request('GET', `/events/${testEvent}`, { key: liveSecretKey }), 'ERR_4050');
      await expectError(await request('POST', `/events/${testEvent}/retry`, { key: liveSecretKey }), 'ERR_4050');
      const live = await ok<EventList>(await request('GET', '/events?object_id=pay_mode', { key: liveSecretKey }));
      expect(live.data).toEqual([]);
      const liveEvent = await insertEvent({ objectId: 'pay_mode', mode: 'live' });
      const liveList = await ok<EventList>(await request('GET', '/events?object_id=pay_mode', { key: liveSecretKey }));
      expect(liveList.data.map((e) => [e.event_id, e.mode])).toEqual([[liveEvent, 'live']]);
    });

    test('authentication: no key ERR_1001, bad key ERR_1002, publishable key ERR_1003', async () => {
      for (const [method, path] of [
        ['GET', '/events'],
        ['GET', '/events/evt_x'],
        ['GET', '/events/evt_x/attempts'],
        ['POST', '/events/evt_x/retry'],
      ] as const) {
        await expectError(await request(method, path, { key: null }), 'ERR_1001');
        await expectError(await request(method, path, { key: 'rail_full_test_nope' }), 'ERR_1002');
        await expectError(await request(method, path, { key: h.publishableKey }), 'ERR_1003');
      }
    });

    test.each([
      ['/events?limit=0', 'ERR_2003', 'limit'],
      ['/events?limit=101', 'ERR_2003', 'limit'],
      ['/events?limit=ten', 'ERR_2003', 'limit'],
      ['/events?delivery_status=lost', 'ERR_2003', 'delivery_status'],
      ['/events?colour=red', 'ERR_2004', 'colour'],
      ['/events?cursor=evt_nowhere', 'ERR_4053', 'cursor'],
      ['/events?cursor=bad%20cursor', 'ERR_2003', 'cursor'],
      ['/events/bad%20id', 'ERR_2003', 'event_id'],
    ] as const)('GET %s answers %s', async (path, code, field) => {
      await expectError(await request('GET', path), code, field);
    });

    test('the events routes are in /openapi.json', async () => {
      const doc = (await (await request('GET', '/openapi.json', { key: null })).json()) as { paths: Json; components: { schemas: Json } };
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/events', '/events/{event_id}', '/events/{event_id}/attempts', '/events/{event_id}/retry']));
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['EventList', 'Event', 'WebhookAttempt', 'WebhookEnvelope']));
    });
  });
});
