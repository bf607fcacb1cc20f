/**
 * Crash test: the real server process takes a stream of creates and confirms from concurrent clients that record
 * every ACKNOWLEDGED (2xx received) result; the process is SIGKILLed mid-stream and started again on the same data
 * (SQLite file, or PostgreSQL with DATABASE_URL). Every acknowledged payment must exist exactly once with the
 * status it was acknowledged with, and every acknowledged status change must have its outbox row.
 *
 * Webhooks: a real receiver runs for the whole test (both processes point RAIL_WEBHOOK_URL at it, with a short
 * retry schedule). It answers 500 to the first delivery of every event, and 503 to everything from just before the
 * kill until the restarted process has run for a second, so the dispatcher's retries and its restart recovery are
 * what deliver. After the restart every outbox event of every acknowledged payment must reach the receiver (at least
 * once; a redelivery carries the same body), every delivery must verify with the documented example's
 * verifyWebhook, and the event types must match the payments' final statuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openDatabase, type Engine } from './storage/database';
import { createTestDatabase, postgresReachable } from './test-support/harness';
import { callApi, startServer, type ServerProcess } from './test-support/server-process';
import { startWebhookReceiver, type WebhookReceiver } from './test-support/webhook-receiver';

/** Fixed: whsec_ + base64 of 32 bytes. */
const WEBHOOK_SECRET = `whsec_${Buffer.from('crash-test-webhook-secret-32-byt').toString('base64')}`;
/** Short (8 attempts over about 12 s) so retries happen inside the test; it outlasts the receiver's bad spells. */
const RETRY_SCHEDULE = '1,1,1,2,2,2,2';
const DELIVERY_WAIT_MS = 30_000;
const RECOVERY_WAIT_MS = 15_000;

interface Acked {
  paymentId: string;
  status: string;
  /** A later call (confirm) was sent and not acknowledged: it may or may not have committed. */
  unackedCallAfter: boolean;
}

/** Workers create (some with confirm: true) and confirm until stopped; only 2xx answers are recorded. */
function drive(server: ServerProcess, workers: number) {
  const acked = new Map<string, Acked>();
  let running = true;
  let sequence = 0;
  const worker = async (w: number) => {
    while (running) {
      const n = (sequence += 1);
      try {
        const vpa = n % 5 === 0 ? 'failure@upi' : 'success@upi';
        const oneShot = n % 3 === 0;
        const created = await callApi(
          server.baseUrl,
          'POST',
          '/payments',
          { amount: 1000 + n, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } }, ...(oneShot ? { confirm: true } : {}) },
          { 'idempotency-key': `crash-${w}-${n}` },
        );
        if (created.status !== 200) throw new Error(`create answered ${created.status}`);
        const paymentId = String(created.body['payment_id']);
        const entry: Acked = { paymentId, status: String(created.body['status']), unackedCallAfter: false };
        acked.set(paymentId, entry);
        if (oneShot) continue;
        entry.unackedCallAfter = true;
        const confirmed = await callApi(server.baseUrl, 'POST', `/payments/${paymentId}/confirm`, {}, { 'idempotency-key': `crash-c-${w}-${n}` });
        if (confirmed.status === 200) acked.set(paymentId, { paymentId, status: String(confirmed.body['status']), unackedCallAfter: false });
      } catch {
        if (!running) return;
        // The process is gone: nothing more is acknowledged.
        return;
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    acked,
    stop: async () => {
      running = false;
      await done;
    },
    done,
  };
}

const AFTER_UNACKED_CONFIRM = ['requires_confirmation', 'succeeded', 'failed'];
const EVENT_FOR_STATUS: Record<string, string | undefined> = { succeeded: 'payment_succeeded', failed: 'payment_failed' };

async function crashRun(engine: Engine): Promise<void> {
  const database = await createTestDatabase(engine);
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-crash-'));
  let server: ServerProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  try {
    receiver = await startWebhookReceiver(WEBHOOK_SECRET);
    receiver.mode = 'fail-first';
    const env = {
      RAIL_WEBHOOK_URL: receiver.url,
      RAIL_WEBHOOK_SECRET: WEBHOOK_SECRET,
      RAIL_WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
      // Recovery within the test: payments the kill left in processing are asked about again after a second.
      RAIL_PAYMENT_SYNC_INTERVAL_MS: '200',
      RAIL_RAIL_CALL_TIMEOUT_MS: '300',
      RAIL_RECOVER_AFTER_MS: '1000',
    };
    const sqliteFile = join(dataDir, 'rail.sqlite');
    server = await startServer({ dataDir, databaseUrl: database.databaseUrl, env });
    const stream = drive(server, 12);
    // Let the stream run, then kill the process without warning while requests (and webhook attempts) are in flight.
    // The kill waits for a number of acknowledged calls, not a time, so a slow machine gets the same test; only a
    // server that acknowledges nothing for 30 s fails here.
    let [seen, stalledSince] = [0, Date.now()];
    while (stream.acked.size < 150) {
      if (stream.acked.size !== seen) [seen, stalledSince] = [stream.acked.size, Date.now()];
      if (Date.now() - stalledSince > 30_000) throw new Error(`the server acknowledged nothing for 30 s (${seen} calls so far)`);
      await new Promise((r) => setTimeout(r, 20));
    }
    receiver.mode = 'down';
    await new Promise((r) => setTimeout(r, 300));
    await server.kill();
    await stream.done;
    const acked = [...stream.acked.values()];

    // The dead process held leases (locked_until = claim + 60 s) on the events it was attempting. They expire on
    // their own after 60 s; the test fast-forwards that expiry instead of waiting it out (recovery after expiry is
    // the same code path: the dispatcher's poll takes events whose locked_until has passed).
    {
      const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile, poolSize: 1 });
      try {
        await db
          .updateTable('webhook_events')
          .set({ locked_until: new Date(0).toISOString() })
          .where('locked_until', 'is not', null)
          .execute();
      } finally {
        await db.destroy();
      }
    }

    server = await startServer({ dataDir, databaseUrl: database.databaseUrl, env });
    const recovering = receiver;
    const backUp = setTimeout(() => (recovering.mode = 'fail-first'), 1_000);
    // The recovery job settles every payment the kill left in processing (bounded wait); none may stay there.
    const finalStatus = new Map<string, string>();
    const recoveryUntil = Date.now() + RECOVERY_WAIT_MS;
    for (;;) {
      for (const payment of acked) {
        if (finalStatus.has(payment.paymentId) && finalStatus.get(payment.paymentId) !== 'processing') continue;
        const retrieved = await callApi(server.baseUrl, 'GET', `/payments/${payment.paymentId}`);
        expect(retrieved.status, payment.paymentId).toBe(200);
        finalStatus.set(payment.paymentId, String(retrieved.body['status']));
      }
      if (![...finalStatus.values()].includes('processing') || Date.now() > recoveryUntil) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(acked.filter((p) => finalStatus.get(p.paymentId) === 'processing').map((p) => p.paymentId), 'payments left in processing').toEqual([]);
    for (const payment of acked) {
      const status = finalStatus.get(payment.paymentId);
      if (payment.unackedCallAfter) {
        // The confirm in flight at the kill may have committed fully, or only its claim (then recovery settled it).
        expect(AFTER_UNACKED_CONFIRM, payment.paymentId).toContain(status);
      } else if (payment.status === 'processing') {
        // Acknowledged in processing (its rail call got no answer in time): settled since.
        expect(['succeeded', 'failed'], payment.paymentId).toContain(status);
      } else expect(status, payment.paymentId).toBe(payment.status);
    }

    // Wait (bounded) until every acknowledged payment that raises an event has had one accepted by the receiver.
    const expectingEvent = acked.filter((p) => EVENT_FOR_STATUS[finalStatus.get(p.paymentId) ?? ''] !== undefined).map((p) => p.paymentId);
    const deliveredFor = () =>
      new Set(receiver!.deliveries.filter((d) => d.answered < 300 && d.event !== undefined).map((d) => String(d.event!.content.object['payment_id'])));
    const waitUntil = Date.now() + DELIVERY_WAIT_MS;
    let missing = expectingEvent;
    while (Date.now() < waitUntil) {
      const got = deliveredFor();
      missing = expectingEvent.filter((id) => !got.has(id));
      if (missing.length === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    clearTimeout(backUp);
    expect(missing, 'acknowledged payments whose event never reached the receiver').toEqual([]);
    expect(await server.stop()).toBe(0);
    server = undefined;

    // Every delivery verifies; one event_id always carries one body; every event was first refused (retries).
    const deliveries = receiver.deliveries;
    expect(deliveries.filter((d) => d.verifyError !== undefined).map((d) => `${d.eventId}: ${d.verifyError}`)).toEqual([]);
    const bodies = new Map<string, Set<string>>();
    for (const d of deliveries) bodies.set(d.eventId, (bodies.get(d.eventId) ?? new Set()).add(d.body));
    expect([...bodies].filter(([, set]) => set.size !== 1).map(([id]) => id), 'event_ids delivered with different bodies').toEqual([]);
    for (const d of deliveries) expect(d.event?.event_id, 'webhook-id is the event_id').toBe(d.eventId);
    const accepted = receiver.accepted();
    for (const id of accepted) {
      const attempts = deliveries.filter((d) => d.eventId === id);
      expect(attempts.length, id).toBeGreaterThanOrEqual(2);
      expect(attempts[0]?.answered, id).toBeGreaterThanOrEqual(500);
    }

    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile, poolSize: 1 });
    try {
      const ids = acked.map((p) => p.paymentId);
      const rows = await db.selectFrom('payments').select(['payment_id', 'status']).where('payment_id', 'in', ids).execute();
      expect(rows).toHaveLength(ids.length); // exactly once each (payment_id is the key; no duplicates, none lost)
      const events = await db
        .selectFrom('webhook_events')
        .select(['event_id', 'object_id', 'event_type', 'delivery_status'])
        .where('object_id', 'in', ids)
        .execute();
      for (const payment of acked) {
        const status = finalStatus.get(payment.paymentId) ?? payment.status;
        const wanted = EVENT_FOR_STATUS[status];
        const mine = events.filter((e) => e.object_id === payment.paymentId);
        if (wanted === undefined) expect(mine, payment.paymentId).toEqual([]);
        else expect(mine.map((e) => e.event_type), payment.paymentId).toEqual([wanted]);
        // Every outbox row was received (2xx at least once), is recorded delivered, and carries the right payment.
        for (const row of mine) {
          expect(accepted.has(row.event_id), `${payment.paymentId} ${row.event_id} received`).toBe(true);
          expect(row.delivery_status, row.event_id).toBe('delivered');
          const received = deliveries.find((d) => d.eventId === row.event_id)?.event;
          expect(received?.event_type, row.event_id).toBe(row.event_type);
          expect(received?.content.object, row.event_id).toMatchObject({ payment_id: payment.paymentId, status });
        }
      }
    } finally {
      await db.destroy();
    }
  } finally {
    await server?.kill();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

const reachable = await postgresReachable();

describe('crash: SIGKILL mid-stream loses no acknowledged payment', () => {
  test('on SQLite', async () => {
    await crashRun('sqlite');
  }, 90_000);

  test.skipIf(!reachable)('on PostgreSQL', async () => {
    await crashRun('postgres');
  }, 90_000);
});
