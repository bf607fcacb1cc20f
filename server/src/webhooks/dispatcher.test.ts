/**
 * Dispatcher and delivery store suite, run on SQLite and PostgreSQL (forEachEngine). Clock, randomness and HTTP are injected: a simulated day passes in milliseconds.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_ACCOUNT_SETTINGS } from '../core/accounts/account-settings';
import type { AuthContext } from '../core/auth/auth-context';
import { bootstrap, type BootstrapResult } from '../core/accounts/bootstrap';
import { ManualClock } from '../kernel/clock';
import { ApiError } from '../core/shared/errors';
import { cryptoIds } from '../kernel/ids';
import { retryEvent } from '../core/events/retry-event';
import { createRailRegistry } from '../rails/rail-adapter';
import { openDatabase, type Engine } from '../storage/database';
import { SqlStore } from '../storage/sql-store';
import type { WebhookEventRecord } from '../storage/events/records';
import { createTestDatabase, memorySecretsFile, testOperatorSecrets, type TestDatabase } from '../test-support/harness';
import { forEachEngine } from '../test-support/engines';
import { DEFAULT_RETRY_SCHEDULE_SECONDS, LEASE_MARGIN_MS, defaultWebhookDeliveryConfig, nextRetryDelayMs, type WebhookDeliveryConfig } from './delivery';
import { WebhookDispatcher } from './dispatcher';
import type { WebhookRequest, WebhookResponse, WebhookSender } from './sender';
import { verifyHyperswitch512, verifyStandardWebhook } from './signing';
import type { Mode } from '../../../protocol/ids';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver';
import { createFetchWebhookSender } from './sender';
import { DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT } from './endpoint-shares';

const URL_ = 'https://merchant.example/hooks';
const DAY_S = 24 * 3600;

/** A receiver behind the WebhookSender interface: records every request and answers with `respond`. */
class FakeReceiver implements WebhookSender {
  readonly requests: { request: WebhookRequest; at: Date }[] = [];
  constructor(
    private readonly clock: ManualClock,
    public respond: (request: WebhookRequest) => Promise<WebhookResponse> | WebhookResponse,
  ) {}

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    this.requests.push({ request, at: this.clock.now() });
    return this.respond(request);
  }

  for(eventId: string) {
    return this.requests.filter((entry) => entry.request.headers['webhook-id'] === eventId);
  }
}

/** What a dispatcher's poll claims: the due events, listed, then claimed for `leaseId`. */
async function claimDue(store: SqlStore, now: Date, lockedUntil: Date, leaseId: string, limit: number): Promise<WebhookEventRecord[]> {
  const due = await store.webhooks.listDueEvents(now, limit);
  return store.webhooks.claimEvents(
    due.map((event) => event.eventId),
    now,
    lockedUntil,
    leaseId,
  );
}

const connectionRefused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

interface Setup {
  database: TestDatabase;
  store: SqlStore;
  clock: ManualClock;
  boot: BootstrapResult;
  openStore(): Promise<SqlStore>;
  close(): Promise<void>;
}

forEachEngine('Webhook dispatcher', (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  async function setup(options: { url?: string | null } = {}): Promise<Setup> {
    const database = await createTestDatabase(engine);
    const stores: SqlStore[] = [];
    const openStore = async () => {
      const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 5 });
      const store = new SqlStore(db, engine);
      await store.migrate();
      stores.push(store);
      return store;
    };
    const store = await openStore();
    const clock = new ManualClock('2025-01-01T00:00:00.000Z');
    const boot = await bootstrap(
      { store, clock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() },
      { settings: DEFAULT_ACCOUNT_SETTINGS, webhookUrl: options.url === null ? undefined : (options.url ?? URL_) },
    );
    const close = async () => {
      for (const s of stores) await s.close();
      await database.drop();
    };
    cleanups.push(close);
    return { database, store, clock, boot, openStore, close };
  }

  let counter = 0;
  async function insertEvent(s: Setup, objectId = `pay_${(counter += 1)}`, mode: Mode = 'test'): Promise<string> {
    const eventId = `evt_${engine}_${Date.now().toString(36)}_${(counter += 1)}`;
    const created = s.clock.now();
    await s.store.outbox.insertEvent({
      eventId,
      accountId: s.boot.account.accountId,
      mode,
      eventType: 'payment_succeeded',
      objectType: 'payment',
      objectId,
      objectVersion: 0,
      createdAt: created,
      payload: {
        event_id: eventId,
        event_type: 'payment_succeeded',
        created: created.toISOString(),
        account_id: s.boot.account.accountId,
        mode,
        content: { type: 'payment_details', object: { payment_id: objectId, status: 'succeeded', amount: 10_000 } },
      },
    });
    return eventId;
  }

  const scope = (s: Setup) => ({ accountId: s.boot.account.accountId, mode: 'test' as const });
  const find = async (s: Setup, eventId: string) => (await s.store.webhooks.findEvent(scope(s), eventId)) as WebhookEventRecord;
  const config = (sender: WebhookSender, overrides: Partial<WebhookDeliveryConfig> = {}) =>
    defaultWebhookDeliveryConfig({ sender, random: () => 0, ...overrides });

  /** Moves the clock to the earliest pending attempt; false when nothing is pending. */
  async function advanceToNextDue(s: Setup): Promise<boolean> {
    const pending = await s.store.webhooks.listEvents(scope(s), { deliveryStatus: 'pending', limit: 1000 });
    const due = pending.map((event) => event.nextAttemptAt?.getTime() ?? Infinity);
    if (due.length === 0) return false;
    const next = Math.min(...due);
    if (next > s.clock.now().getTime()) s.clock.advance(next - s.clock.now().getTime());
    return true;
  }

  /** Runs the dispatcher through simulated time until nothing is pending. */
  async function runUntilSettled(s: Setup, dispatcher: WebhookDispatcher): Promise<void> {
    for (let guard = 0; guard < 1000; guard += 1) {
      await dispatcher.drain();
      if (!(await advanceToNextDue(s))) return;
    }
    throw new Error('did not settle');
  }

  /** Checks a request as a Standard Webhooks receiver would, at the time it was received. */
  const expectValidSignature = (s: Setup, entry: { request: WebhookRequest; at: Date }) => {
    const parsed = verifyStandardWebhook(s.boot.webhook.secret, entry.request.headers, entry.request.body, {
      nowSeconds: Math.floor(entry.at.getTime() / 1000),
    });
    expect(parsed).toMatchObject({ event_id: entry.request.headers['webhook-id'] });
  };

  describe(`[${engine}] webhook dispatcher`, () => {
    test('delivers a due event on 2xx, signed, and records the attempt', async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 204, body: '' }));
      const eventId = await insertEvent(s);
      const dispatcher = new WebhookDispatcher(s, config(receiver));
      expect(await dispatcher.runOnce()).toBe(1);

      expect(receiver.requests).toHaveLength(1);
      const [entry] = receiver.requests;
      expect(entry?.request.url).toBe(URL_);
      expect(entry?.request.headers).toMatchObject({
        'content-type': 'application/json',
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(s.clock.now().getTime() / 1000)),
      });
      expect(entry?.request.headers['x-webhook-signature-512']).toMatch(/^[0-9a-f]{128}$/);
      expect(JSON.parse(entry?.request.body ?? '')).toEqual((await find(s, eventId)).payload);
      expectValidSignature(s, entry!);

      const event = await find(s, eventId);
      expect(event).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 1, nextAttemptAt: null, leaseId: null });
      const attempts = await s.store.webhooks.listAttempts(scope(s), eventId);
      expect(attempts).toEqual([
        expect.objectContaining({ attemptNumber: 1, trigger: 'scheduled', statusCode: 204, error: null, succeeded: true, url: URL_ }),
      ]);
      expect(await dispatcher.runOnce()).toBe(0);
    });

    test('the stored bytes are posted as they are, never parsed and serialized again, and both signatures are over exactly them', async () => {
      const s = await setup();
      const eventId = await insertEvent(s);
      // Bytes JSON.stringify would not write (spaces, a \u escape): a parse-and-serialize round trip would change them.
      const stored = `{"event_id": "${eventId}", "event_type": "payment_succeeded", "content": {"type": "payment_details", "object": {"payment_id": "pay_bytes", "description": "caf\\u00e9"}}}`;
      const { db } = openDatabase({ databaseUrl: s.database.databaseUrl, sqliteFile: s.database.sqliteFile, poolSize: 1 });
      try {
        await db.updateTable('webhook_events').set({ payload: stored }).where('event_id', '=', eventId).execute();
      } finally {
        await db.destroy();
      }
      const receiver = new FakeReceiver(s.clock, () => ({ status: 200, body: '' }));
      expect(await new WebhookDispatcher(s, config(receiver)).runOnce()).toBe(1);
      const [entry] = receiver.requests;
      expect(entry?.request.body).toBe(stored);
      expectValidSignature(s, entry!);
      expect(verifyHyperswitch512(s.boot.webhook.secret, stored, entry?.request.headers['x-webhook-signature-512'])).toBe(true);
    });

    test('any 2xx is a delivery; any other status (3xx not followed) is a failed attempt retried after the first delay', async () => {
      const s = await setup();
      const statuses = [200, 201, 202, 299, 301, 400, 410, 500, 503];
      const byEvent = new Map<string, number>();
      for (const status of statuses) byEvent.set(await insertEvent(s), status);
      const receiver = new FakeReceiver(s.clock, (request) => ({ status: byEvent.get(request.headers['webhook-id'] ?? '') ?? 0, body: 'answer' }));
      await new WebhookDispatcher(s, config(receiver)).drain();
      for (const [eventId, status] of byEvent) {
        const event = await find(s, eventId);
        const [attempt] = await s.store.webhooks.listAttempts(scope(s), eventId);
        expect(attempt).toMatchObject({ statusCode: status, responseBody: 'answer', succeeded: status < 300 });
        if (status < 300) {
          expect(event, String(status)).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 1, nextAttemptAt: null });
        } else {
          expect(event, String(status)).toMatchObject({ deliveryStatus: 'pending', attemptCount: 1, scheduledAttemptCount: 1 });
          expect(event.nextAttemptAt?.getTime()).toBe(s.clock.now().getTime() + 60_000);
        }
      }
    });

    test('a receiver down for 24 simulated hours (500 and connection refused) gets every event afterwards, same event_id every attempt', async () => {
      const s = await setup();
      const start = s.clock.now().getTime();
      let calls = 0;
      const receiver = new FakeReceiver(s.clock, () => {
        calls += 1;
        if (s.clock.now().getTime() - start <= DAY_S * 1000) {
          if (calls % 2 === 0) throw connectionRefused();
          return { status: 500, body: 'down' };
        }
        return { status: 200, body: 'ok' };
      });
      const eventIds = [await insertEvent(s), await insertEvent(s), await insertEvent(s)];
      await runUntilSettled(s, new WebhookDispatcher(s, config(receiver)));

      const offsets = [0];
      for (const seconds of DEFAULT_RETRY_SCHEDULE_SECONDS) offsets.push((offsets.at(-1) ?? 0) + seconds);
      expect(offsets.at(-1)).toBeGreaterThanOrEqual(DAY_S);
      for (const eventId of eventIds) {
        const event = await find(s, eventId);
        expect(event).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 17 });
        const received = receiver.for(eventId);
        expect(received).toHaveLength(17);
        const bodies = new Set(received.map((entry) => entry.request.body));
        expect(bodies.size).toBe(1);
        for (const entry of received) {
          expect(entry.request.headers['webhook-id']).toBe(eventId);
          expect(JSON.parse(entry.request.body)).toMatchObject({ event_id: eventId });
          expectValidSignature(s, entry);
        }
        // Attempts follow the schedule (random() = 0: no jitter) and each one is recorded.
        const attempts = await s.store.webhooks.listAttempts(scope(s), eventId);
        expect(attempts.map((attempt) => (attempt.attemptedAt.getTime() - start) / 1000)).toEqual(offsets);
        expect(attempts.map((attempt) => attempt.attemptNumber)).toEqual(offsets.map((_, i) => i + 1));
        expect(attempts.slice(0, -1).every((attempt) => !attempt.succeeded)).toBe(true);
        expect(attempts.some((attempt) => attempt.statusCode === 500 && attempt.responseBody === 'down')).toBe(true);
        expect(attempts.some((attempt) => attempt.statusCode === null && attempt.error === 'ECONNREFUSED')).toBe(true);
        expect(attempts.at(-1)).toMatchObject({ succeeded: true, statusCode: 200 });
      }
    });

    test('after the whole schedule fails the event is failed (retries_exhausted); a manual retry redelivers it with the same event_id', async () => {
      const s = await setup();
      const start = s.clock.now().getTime();
      const receiver = new FakeReceiver(s.clock, () => {
        throw connectionRefused();
      });
      const eventId = await insertEvent(s);
      const delivery = config(receiver);
      await runUntilSettled(s, new WebhookDispatcher(s, delivery));

      const failed = await find(s, eventId);
      expect(failed).toMatchObject({ deliveryStatus: 'failed', failureReason: 'retries_exhausted', attemptCount: 17, nextAttemptAt: null });
      expect((failed.lastAttemptAt?.getTime() ?? 0) - start).toBeGreaterThanOrEqual(DAY_S * 1000);

      receiver.respond = () => ({ status: 200, body: 'back' });
      s.clock.advance(3600_000);
      const auth: AuthContext = { ...scope(s), keyId: 'key_test', keyKind: 'secret', account: s.boot.account };
      const core = { store: s.store, clock: s.clock, ids: cryptoIds, rails: createRailRegistry({}) };
      const detail = await retryEvent(core, delivery, auth, eventId);
      expect(detail).toMatchObject({ event_id: eventId, delivery_status: 'delivered', attempt_count: 18, failure_reason: null });
      expect(detail.attempts.at(-1)).toMatchObject({ attempt_number: 18, trigger: 'manual', status_code: 200, succeeded: true });
      const last = receiver.requests.at(-1);
      expect(last?.request.headers['webhook-id']).toBe(eventId);
      expectValidSignature(s, last!);
      // The dispatcher has nothing left to do.
      expect(await new WebhookDispatcher(s, delivery).runOnce()).toBe(0);
    });

    test('jitter adds up to 10% to each scheduled delay, never less', () => {
      const schedule = DEFAULT_RETRY_SCHEDULE_SECONDS;
      expect(nextRetryDelayMs(schedule, 1, () => 0)).toBe(60_000);
      expect(nextRetryDelayMs(schedule, 1, () => 0.5)).toBe(63_000);
      expect(nextRetryDelayMs(schedule, 1, () => 0.999)).toBe(65_994);
      expect(nextRetryDelayMs(schedule, 16, () => 0)).toBe(21_600_000);
      expect(nextRetryDelayMs(schedule, 17, () => 0)).toBeUndefined();
    });

    test('scheduled attempts are spaced by the configured schedule with injected jitter', async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 500, body: '' }));
      const eventId = await insertEvent(s);
      await runUntilSettled(s, new WebhookDispatcher(s, config(receiver, { retryScheduleSeconds: [10, 20, 40], random: () => 0.5 })));
      const attempts = await s.store.webhooks.listAttempts(scope(s), eventId);
      const gaps = attempts.slice(1).map((attempt, i) => attempt.attemptedAt.getTime() - (attempts[i]?.attemptedAt.getTime() ?? 0));
      expect(gaps).toEqual([10_500, 21_000, 42_000]);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'failed', failureReason: 'retries_exhausted' });
    });

    test('a restart (new store and dispatcher on the same database) continues pending deliveries', async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 503, body: '' }));
      const eventId = await insertEvent(s);
      await new WebhookDispatcher(s, config(receiver)).runOnce();
      await s.store.close();

      const store = await s.openStore();
      receiver.respond = () => ({ status: 200, body: '' });
      const restarted = new WebhookDispatcher({ store, clock: s.clock }, config(receiver));
      expect(await restarted.runOnce()).toBe(0);
      s.clock.advance(60_000);
      expect(await restarted.runOnce()).toBe(1);
      const event = await store.webhooks.findEvent(scope(s), eventId);
      expect(event).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 2 });
      expect((await store.webhooks.listAttempts(scope(s), eventId)).map((a) => [a.attemptNumber, a.succeeded])).toEqual([
        [1, false],
        [2, true],
      ]);
      expect(new Set(receiver.requests.map((entry) => entry.request.headers['webhook-id']))).toEqual(new Set([eventId]));
    });

    test('an event claimed by a dispatcher that died is retried once its lease expires', async () => {
      const s = await setup();
      const eventId = await insertEvent(s);
      const now = s.clock.now();
      const crashed = await claimDue(s.store, now, new Date(now.getTime() + 60_000), 'lease_of_dead_instance', 10);
      expect(crashed.map((event) => event.eventId)).toEqual([eventId]);

      const receiver = new FakeReceiver(s.clock, () => ({ status: 200, body: '' }));
      const dispatcher = new WebhookDispatcher(s, config(receiver));
      expect(await dispatcher.runOnce()).toBe(0);
      s.clock.advance(60_000);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 1 });
      // The dead instance's lease is gone: it can no longer write a result.
      expect(await s.store.webhooks.completeAttempt(eventId, 'lease_of_dead_instance', {
        deliveryStatus: 'failed',
        scheduledAttemptCount: 9,
        nextAttemptAt: null,
        failureReason: 'x',
        lastAttemptAt: now,
        updatedAt: now,
      })).toBe(false);
    });

    test('polling goes on while attempts are in flight: events behind ones whose endpoint hangs are delivered meanwhile', async () => {
      const s = await setup();
      const hanging: (() => void)[] = [];
      const slow = new Set<string>();
      const receiver = new FakeReceiver(s.clock, (request) =>
        slow.has(request.headers['webhook-id'] ?? '')
          ? new Promise<WebhookResponse>((resolve) => hanging.push(() => resolve({ status: 200, body: '' })))
          : { status: 200, body: '' },
      );
      for (let i = 0; i < 4; i += 1) slow.add(await insertEvent(s, `pay_slow_${i}`));
      s.clock.advance(1);
      const behind = await insertEvent(s, 'pay_behind');
      const dispatcher = new WebhookDispatcher(s, config(receiver), { pollIntervalMs: 5, batchSize: 2, maxInFlight: 10 });
      dispatcher.start();
      try {
        for (let waited = 0; receiver.for(behind).length === 0 && waited < 3_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(receiver.for(behind)).toHaveLength(1);
        // The four slow attempts are still waiting for their endpoint.
        expect(hanging).toHaveLength(4);
      } finally {
        for (const release of hanging) release();
        await dispatcher.stop();
      }
      expect((await find(s, behind)).deliveryStatus).toBe('delivered');
      for (const eventId of slow) expect((await find(s, eventId)).deliveryStatus).toBe('delivered');
    });

    test('two dispatchers on one database never deliver the same event at once, and each event once', async () => {
      const s = await setup();
      const eventIds = new Set<string>();
      for (let i = 0; i < 40; i += 1) eventIds.add(await insertEvent(s));
      const inFlight = new Set<string>();
      const overlaps: string[] = [];
      const deliveries = new Map<string, number>();
      const receiver = new FakeReceiver(s.clock, async (request) => {
        const id = request.headers['webhook-id'] ?? '';
        if (inFlight.has(id)) overlaps.push(id);
        inFlight.add(id);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight.delete(id);
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
        return { status: 200, body: '' };
      });
      const other = await s.openStore();
      const a = new WebhookDispatcher(s, config(receiver), { batchSize: 4 });
      const b = new WebhookDispatcher({ store: other, clock: s.clock }, config(receiver), { batchSize: 4 });
      const claimed = await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);

      expect(claimed.reduce((sum, n) => sum + n, 0)).toBe(40);
      expect(overlaps).toEqual([]);
      expect([...deliveries.keys()].sort()).toEqual([...eventIds].sort());
      expect([...deliveries.values()].every((count) => count === 1)).toBe(true);
      for (const eventId of eventIds) expect((await find(s, eventId)).attemptCount).toBe(1);
    });

    test('a claim is exclusive: a second claimer gets nothing until the lease expires', async () => {
      const s = await setup();
      const eventId = await insertEvent(s);
      const other = await s.openStore();
      const now = s.clock.now();
      const until = new Date(now.getTime() + 60_000);
      const [first, second] = await Promise.all([
        claimDue(s.store, now, until, 'lease_a', 10),
        claimDue(other, now, until, 'lease_b', 10),
      ]);
      expect([...first, ...second].map((event) => event.eventId)).toEqual([eventId]);
      expect(await s.store.webhooks.claimEvent(scope(s), eventId, now, until, 'lease_manual')).toBeUndefined();
      const later = new Date(until.getTime());
      expect(await s.store.webhooks.claimEvent(scope(s), eventId, later, new Date(later.getTime() + 1000), 'lease_manual')).toMatchObject({
        eventId,
        leaseId: 'lease_manual',
      });
    });

    /** Registers the mode's own endpoint (taking over from the account settings' URL), enabled or not. */
    const registerEndpoint = async (s: Setup, enabled: boolean, url = URL_, mode: Mode = 'test') => {
      const at = s.clock.now();
      const endpoint = { endpointId: `whe_${engine}_${(counter += 1)}`, ...scope(s), mode, url, secret: s.boot.webhook.secret, previousSecret: null, previousSecretUntil: null, enabled, createdAt: at, updatedAt: at };
      expect(await s.store.webhookEndpoints.insertWebhookEndpoint(endpoint)).toBe('inserted');
      return endpoint;
    };

    test("a new event's delivery status is decided by its insert, from the endpoint its account and mode have then", async () => {
      const s = await setup();
      // The account settings' URL.
      const first = await insertEvent(s);
      expect(await find(s, first)).toMatchObject({ deliveryStatus: 'pending', nextAttemptAt: s.clock.now() });
      // A registered endpoint of the mode, enabled, then disabled: it decides, whatever the settings say.
      const endpoint = await registerEndpoint(s, true);
      const second = await insertEvent(s);
      expect(await find(s, second)).toMatchObject({ deliveryStatus: 'pending', nextAttemptAt: s.clock.now() });
      expect(await s.store.webhookEndpoints.updateWebhookEndpointSettings(endpoint.accountId, endpoint.endpointId, { url: URL_, enabled: false, updatedAt: s.clock.now() })).toBe(true);
      const third = await insertEvent(s);
      expect(await find(s, third)).toMatchObject({ deliveryStatus: 'no_endpoint', nextAttemptAt: null, attemptCount: 0 });
      // Events written before the endpoint went away are still pending: the dispatcher's poll decides for them.
      expect((await find(s, first)).deliveryStatus).toBe('pending');
    });

    test('events whose endpoint went away after their insert are marked no_endpoint without a claim; one another instance holds is left to it', async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 200, body: '' }));
      const held = await insertEvent(s);
      const free = await insertEvent(s);
      const now = s.clock.now();
      const other = await s.openStore();
      expect((await other.webhooks.claimEvents([held], now, new Date(now.getTime() + 60_000), 'lease_other')).map((event) => event.eventId)).toEqual([held]);
      await registerEndpoint(s, false);
      expect(await new WebhookDispatcher(s, config(receiver)).runOnce()).toBe(1);
      expect(await find(s, free)).toMatchObject({ deliveryStatus: 'no_endpoint', leaseId: null, lockedUntil: null });
      expect(await find(s, held)).toMatchObject({ deliveryStatus: 'pending', leaseId: 'lease_other' });
      // Listed just before another instance claimed it: the mark is conditional, as a claim is.
      expect(await s.store.webhooks.markDueNoEndpoint([held], s.clock.now(), 'endpoint_unavailable')).toBe(0);
      expect(await find(s, held)).toMatchObject({ deliveryStatus: 'pending', leaseId: 'lease_other' });
      expect(receiver.requests).toHaveLength(0);
    });

    test('an endpoint disabled and enabled again before the next attempt keeps the schedule; an attempt due while it is disabled ends it with a recorded reason, and the event is resent by hand after', async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 500, body: '' }));
      const endpoint = await registerEndpoint(s, true);
      const setEnabled = async (enabled: boolean) =>
        expect(await s.store.webhookEndpoints.updateWebhookEndpointSettings(endpoint.accountId, endpoint.endpointId, { url: URL_, enabled, updatedAt: s.clock.now() })).toBe(true);
      const eventId = await insertEvent(s);
      const delivery = config(receiver);
      const dispatcher = new WebhookDispatcher(s, delivery);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'pending', attemptCount: 1 });

      // Disabled and enabled again before the retry falls due: the retry is made (as Stripe's).
      await setEnabled(false);
      await setEnabled(true);
      s.clock.advance(60_000);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'pending', attemptCount: 2 });

      // Disabled when the next retry falls due: the schedule ends, with the reason recorded and the attempts kept.
      await setEnabled(false);
      s.clock.advance(300_000);
      expect(await dispatcher.runOnce()).toBe(1);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'no_endpoint', failureReason: 'endpoint_unavailable', attemptCount: 2, nextAttemptAt: null });
      expect(receiver.requests).toHaveLength(2);

      // Enabled again: nothing is resent by itself; the event is listed as not delivered and the retry operation sends it.
      await setEnabled(true);
      s.clock.advance(3_600_000);
      expect(await dispatcher.runOnce()).toBe(0);
      expect((await s.store.webhooks.listEvents(scope(s), { deliveryStatus: 'no_endpoint', limit: 10 })).map((event) => event.eventId)).toEqual([eventId]);
      receiver.respond = () => ({ status: 200, body: '' });
      const auth: AuthContext = { ...scope(s), keyId: 'key_test', keyKind: 'secret', account: s.boot.account };
      const core = { store: s.store, clock: s.clock, ids: cryptoIds, rails: createRailRegistry({}) };
      const detail = await retryEvent(core, delivery, auth, eventId);
      expect(detail).toMatchObject({ delivery_status: 'delivered', attempt_count: 3, failure_reason: null });
      expect(detail.attempts.map((attempt) => [attempt.trigger, attempt.succeeded])).toEqual([
        ['scheduled', false],
        ['scheduled', false],
        ['manual', true],
      ]);
    });

    test('without an endpoint the event is recorded as no_endpoint by its insert and nothing is sent', async () => {
      const s = await setup({ url: null });
      expect(s.boot.webhook).toMatchObject({ url: null, secretSource: 'generated' });
      const receiver = new FakeReceiver(s.clock, () => ({ status: 200, body: '' }));
      const eventId = await insertEvent(s);
      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'no_endpoint', attemptCount: 0, nextAttemptAt: null, leaseId: null });
      expect(await new WebhookDispatcher(s, config(receiver)).runOnce()).toBe(0);
      expect(receiver.requests).toHaveLength(0);

      const auth: AuthContext = { ...scope(s), keyId: 'key_test', keyKind: 'secret', account: s.boot.account };
      const core = { store: s.store, clock: s.clock, ids: cryptoIds, rails: createRailRegistry({}) };
      await expect(retryEvent(core, config(receiver), auth, eventId)).rejects.toMatchObject({ code: 'ERR_4051' } satisfies Partial<ApiError>);
    });

    /** A recording receiver over HTTP that checks signatures with the account's secret, closed after the test. */
    const receiverFor = async (s: Setup): Promise<WebhookReceiver> => {
      // The receiver checks webhook-timestamp against its own clock.
      if (s.clock.now().getTime() < Date.now() - 60_000) s.clock.advance(Date.now() - s.clock.now().getTime());
      const receiver = await startWebhookReceiver(s.boot.webhook.secret);
      cleanups.push(async () => {
        receiver.release();
        await receiver.close();
      });
      return receiver;
    };

    /** Waits (a bounded while) for a condition that real HTTP makes true asynchronously. */
    const eventually = async (condition: () => boolean) => {
      for (let waited = 0; !condition() && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    };

    test("an endpoint that does not answer holds only its share of the attempts: another endpoint's events go out meanwhile", async () => {
      const s = await setup();
      const stalled = await receiverFor(s);
      stalled.mode = 'stall';
      const healthy = await receiverFor(s);
      await registerEndpoint(s, true, stalled.url, 'test');
      await registerEndpoint(s, true, healthy.url, 'live');
      const stalledEvents = new Set<string>();
      for (let i = 0; i < 12; i += 1) stalledEvents.add(await insertEvent(s, `pay_stalled_${i}`, 'test'));
      s.clock.advance(1);
      const healthyEvents = new Set<string>();
      for (let i = 0; i < 3; i += 1) healthyEvents.add(await insertEvent(s, `pay_healthy_${i}`, 'live'));
      // Room for 10 attempts at once: without a share per endpoint, the stalled one's 12 events would take them all.
      const dispatcher = new WebhookDispatcher(s, config(createFetchWebhookSender(), { timeoutMs: 60_000, leaseMs: 60_000 + 2 * LEASE_MARGIN_MS }), { pollIntervalMs: 5, maxInFlight: 10 });
      dispatcher.start();
      try {
        await eventually(() => healthy.accepted().size === healthyEvents.size && stalled.stalled() >= DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        expect(healthy.accepted()).toEqual(healthyEvents);
        expect(stalled.stalled()).toBe(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
      } finally {
        stalled.release();
        await dispatcher.stop();
      }
      for (const eventId of healthyEvents) expect((await s.store.webhooks.findEvent({ ...scope(s), mode: 'live' }, eventId))?.deliveryStatus).toBe('delivered');
      // The stalled endpoint's other events were left pending, unclaimed, for later polls.
      const held = [...stalledEvents].filter((eventId) => stalled.deliveries.some((delivery) => delivery.eventId === eventId));
      expect(held).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
      for (const eventId of stalledEvents) {
        expect(await find(s, eventId)).toMatchObject(held.includes(eventId) ? { deliveryStatus: 'delivered' } : { deliveryStatus: 'pending', attemptCount: 0, leaseId: null });
      }
    });

    test("an endpoint's backlog does not fill every listing: once it has taken its share, later events of other endpoints are listed first", async () => {
      const s = await setup();
      await registerEndpoint(s, true, URL_, 'live');
      const held: (() => void)[] = [];
      const receiver = new FakeReceiver(s.clock, (request) =>
        JSON.parse(request.body).mode === 'test'
          ? new Promise<WebhookResponse>((resolve) => held.push(() => resolve({ status: 200, body: '' })))
          : { status: 200, body: '' },
      );
      const backlog: string[] = [];
      for (let i = 0; i < 30; i += 1) backlog.push(await insertEvent(s, `pay_backlog_${i}`, 'test'));
      s.clock.advance(1);
      const other = await insertEvent(s, 'pay_other', 'live');
      const dispatcher = new WebhookDispatcher(s, config(receiver), { pollIntervalMs: 5 });
      dispatcher.start();
      try {
        await eventually(() => held.length === DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        // One of the backlog's attempts finishes: the poll it starts lists the other endpoint's event, not the backlog's sixth.
        held.shift()?.();
        await eventually(() => receiver.for(other).length === 1 && held.length === DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        expect(receiver.for(other)).toHaveLength(1);
        // The finished attempt's place went to the backlog's next event (a refill), never beyond the share.
        expect(held).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        expect(receiver.requests.filter((entry) => backlog.includes(entry.request.headers['webhook-id'] ?? ''))).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT + 1);
      } finally {
        for (const release of held) release();
        await dispatcher.stop();
      }
    });

    /**
     * Inserts `count` events of one endpoint and starts the polling loop with an interval never waited out: every
     * event must be sent, then (after `release`, which ends held answers, and the stop) be delivered.
     */
    const sendsAllWithoutWaitingTheInterval = async (s: Setup, receiver: FakeReceiver, count: number, release = () => {}) => {
      const eventIds: string[] = [];
      for (let i = 0; i < count; i += 1) eventIds.push(await insertEvent(s));
      const dispatcher = new WebhookDispatcher(s, config(receiver), { pollIntervalMs: 3_600_000 });
      dispatcher.start();
      try {
        await eventually(() => receiver.requests.length === eventIds.length);
        expect(receiver.requests).toHaveLength(eventIds.length);
      } finally {
        release();
        await dispatcher.stop();
      }
      for (const eventId of eventIds) expect((await find(s, eventId)).deliveryStatus).toBe('delivered');
    };

    test("one attempt that does not end holds one place of its endpoint's share: the backlog goes on through the others", async () => {
      const s = await setup();
      let stalled: (() => void) | undefined;
      const receiver = new FakeReceiver(s.clock, () =>
        stalled === undefined ? new Promise<WebhookResponse>((resolve) => (stalled = () => resolve({ status: 200, body: '' }))) : { status: 200, body: '' },
      );
      // The first poll takes the share, then finished attempts refill their places.
      await sendsAllWithoutWaitingTheInterval(s, receiver, 4 * DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT, () => stalled?.());
    });

    test("a finished attempt polls again at once for an endpoint's events left behind by its share", async () => {
      const s = await setup();
      const receiver = new FakeReceiver(s.clock, () => ({ status: 200, body: '' }));
      // The polls after the first come from finished attempts.
      await sendsAllWithoutWaitingTheInterval(s, receiver, 3 * DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
    });

    /** A receiver that holds its first `holding` answers until the test releases them (`held`), and answers 200 after. */
    const holdingReceiver = (s: Setup, holding: number) => {
      const held: (() => void)[] = [];
      const receiver = new FakeReceiver(s.clock, () =>
        held.length < holding ? new Promise<WebhookResponse>((resolve) => held.push(() => resolve({ status: 200, body: '' }))) : { status: 200, body: '' },
      );
      return { receiver, held };
    };
    /** What POST /events/{event_id}/retry calls retryEvent with, for the setup's account in test mode. */
    const byHand = (s: Setup) => ({
      core: { store: s.store, clock: s.clock, ids: cryptoIds, rails: createRailRegistry({}) },
      auth: { ...scope(s), keyId: 'key_test', keyKind: 'secret', account: s.boot.account } satisfies AuthContext,
    });

    test("a manual retry takes a place of its endpoint's share: while the dispatcher's attempts hold them all it is refused (ERR_4290, Retry-After the timeout) and sends nothing", async () => {
      const s = await setup();
      const { receiver, held } = holdingReceiver(s, DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
      const eventIds: string[] = [];
      for (let i = 0; i <= DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT; i += 1) eventIds.push(await insertEvent(s));
      const delivery = config(receiver);
      const { core, auth } = byHand(s);
      const run = new WebhookDispatcher(s, delivery).runOnce();
      try {
        await eventually(() => held.length === DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        const left = eventIds.find((eventId) => receiver.for(eventId).length === 0)!;
        await expect(retryEvent(core, delivery, auth, left)).rejects.toMatchObject({ code: 'ERR_4290', retryAfterSeconds: 10 } satisfies Partial<ApiError>);
        expect(receiver.requests).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        expect(await find(s, left)).toMatchObject({ deliveryStatus: 'pending', attemptCount: 0, leaseId: null });
        // A place given back is the retry's to take.
        held[0]!();
        await eventually(() => delivery.endpointShares.inFlight(scope(s)) < DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        expect(await retryEvent(core, delivery, auth, left)).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
      } finally {
        for (const release of held) release();
        await run;
      }
      expect(delivery.endpointShares.inFlight(scope(s))).toBe(0);
    });

    test("manual retries hold at most their endpoint's share, the dispatcher's polls leave its events alone meanwhile, and the places are given back", async () => {
      const s = await setup();
      const { receiver, held } = holdingReceiver(s, DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
      const eventIds: string[] = [];
      for (let i = 0; i < DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT + 2; i += 1) eventIds.push(await insertEvent(s));
      const delivery = config(receiver);
      const { core, auth } = byHand(s);
      const retries = eventIds.slice(0, DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT).map((eventId) => retryEvent(core, delivery, auth, eventId));
      try {
        await eventually(() => held.length === DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
        await expect(retryEvent(core, delivery, auth, eventIds.at(-1)!)).rejects.toMatchObject({ code: 'ERR_4290' } satisfies Partial<ApiError>);
        expect(await new WebhookDispatcher(s, delivery).runOnce()).toBe(0);
        expect(receiver.requests).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT);
      } finally {
        for (const release of held) release();
      }
      for (const detail of await Promise.all(retries)) expect(detail).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
      expect(delivery.endpointShares.inFlight(scope(s))).toBe(0);
      expect(await new WebhookDispatcher(s, delivery).drain()).toBe(2);
      expect(receiver.requests).toHaveLength(DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT + 2);
    });

    test('a receiver that answers 2xx and then stalls its body accepted the event: delivered once, and its connection is closed', async () => {
      const s = await setup();
      const receiver = await receiverFor(s);
      receiver.mode = 'stall-body';
      await registerEndpoint(s, true, receiver.url);
      const eventId = await insertEvent(s);
      const dispatcher = new WebhookDispatcher(s, config(createFetchWebhookSender({ bodyWaitMs: 50 })));
      expect(await dispatcher.runOnce()).toBe(1);

      expect(await find(s, eventId)).toMatchObject({ deliveryStatus: 'delivered', attemptCount: 1, nextAttemptAt: null });
      expect(await s.store.webhooks.listAttempts(scope(s), eventId)).toEqual([
        expect.objectContaining({ statusCode: 200, error: null, succeeded: true, responseBody: 'accepted, and then ' }),
      ]);
      // The unfinished answer's connection is not kept open.
      await eventually(() => receiver.openConnections() === 0);
      expect(receiver.openConnections()).toBe(0);
      expect(receiver.stalled()).toBe(0);
    });

    test('bootstrap keeps a generated secret across restarts and takes RAIL_WEBHOOK_SECRET over it', async () => {
      const s = await setup();
      expect(s.boot.webhook.secret).toMatch(/^whsec_/);
      const again = await bootstrap(
        { store: s.store, clock: s.clock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() },
        { settings: DEFAULT_ACCOUNT_SETTINGS, webhookUrl: URL_ },
      );
      expect(again.webhook).toEqual({ url: URL_, secret: s.boot.webhook.secret, secretSource: 'stored' });
      const fromEnv = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const withEnv = await bootstrap(
        { store: s.store, clock: s.clock, ids: cryptoIds, secretsFile: memorySecretsFile(), operatorSecrets: testOperatorSecrets() },
        { settings: DEFAULT_ACCOUNT_SETTINGS, webhookSecret: fromEnv },
      );
      expect(withEnv.webhook).toEqual({ url: null, secret: fromEnv, secretSource: 'env' });
      expect(await s.store.webhooks.findWebhookEndpoint({ accountId: s.boot.account.accountId, mode: 'test' })).toEqual({ url: null, secret: fromEnv, previousSecret: null, previousSecretUntil: null });
    });
  });
});
