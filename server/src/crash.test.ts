/**
 * Crash test: the real server process takes a stream of creates and confirms from concurrent clients that record
 * every ACKNOWLEDGED (2xx received) result; the process is SIGKILLed mid-stream and started again on the same data
 * (SQLite file, or PostgreSQL with DATABASE_URL). Every acknowledged payment must exist exactly once with the
 * status it was acknowledged with, and every acknowledged status change must have its outbox row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openDatabase, type Engine } from './storage/database';
import { createTestDatabase, postgresReachable } from './test-support/harness';
import { callApi, startServer, type ServerProcess } from './test-support/server-process';

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

const AFTER_UNACKED_CONFIRM = ['requires_confirmation', 'processing', 'succeeded', 'failed'];
const EVENT_FOR_STATUS: Record<string, string | undefined> = { succeeded: 'payment_succeeded', failed: 'payment_failed' };

async function crashRun(engine: Engine): Promise<void> {
  const database = await createTestDatabase(engine);
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-crash-'));
  let server: ServerProcess | undefined;
  try {
    server = await startServer({ dataDir, databaseUrl: database.databaseUrl });
    const stream = drive(server, 12);
    // Let the stream run, then kill the process without warning while requests are in flight.
    const deadline = Date.now() + 8_000;
    while (stream.acked.size < 150 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await server.kill();
    await stream.done;
    const acked = [...stream.acked.values()];
    expect(acked.length).toBeGreaterThan(20);

    server = await startServer({ dataDir, databaseUrl: database.databaseUrl });
    const finalStatus = new Map<string, string>();
    for (const payment of acked) {
      const retrieved = await callApi(server.baseUrl, 'GET', `/payments/${payment.paymentId}`);
      expect(retrieved.status, payment.paymentId).toBe(200);
      const status = String(retrieved.body['status']);
      finalStatus.set(payment.paymentId, status);
      if (payment.unackedCallAfter) {
        // The confirm in flight at the kill may have committed (fully, or its claim to processing only).
        expect(AFTER_UNACKED_CONFIRM, payment.paymentId).toContain(status);
        if (status === payment.status) continue;
      } else expect(status, payment.paymentId).toBe(payment.status);
    }
    expect([...finalStatus.values()].filter((s) => s === 'processing').length, 'payments left in processing').toBeLessThanOrEqual(12);
    expect(await server.stop()).toBe(0);
    server = undefined;

    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: join(dataDir, 'rail.sqlite'), poolSize: 1 });
    try {
      const ids = acked.map((p) => p.paymentId);
      const rows = await db.selectFrom('payments').select(['payment_id', 'status']).where('payment_id', 'in', ids).execute();
      expect(rows).toHaveLength(ids.length); // exactly once each (payment_id is the key; no duplicates, none lost)
      const events = await db.selectFrom('webhook_events').select(['object_id', 'event_type', 'delivery_status']).where('object_id', 'in', ids).execute();
      for (const payment of acked) {
        const wanted = EVENT_FOR_STATUS[finalStatus.get(payment.paymentId) ?? payment.status];
        const mine = events.filter((e) => e.object_id === payment.paymentId);
        if (wanted === undefined) expect(mine, payment.paymentId).toEqual([]);
        else expect(mine.map((e) => e.event_type), payment.paymentId).toEqual([wanted]);
        // TODO(webhooks dispatcher): once the dispatcher lands (delivery_status moves past 'pending'), start a
        // receiver, restart with RAIL_WEBHOOK_URL pointing at it, and assert every row above is delivered at
        // least once with a stable webhook-id. Until then the outbox row is the durable half of the promise.
      }
    } finally {
      await db.destroy();
    }
  } finally {
    await server?.kill();
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
