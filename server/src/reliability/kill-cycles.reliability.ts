/**
 * Kill cycles (`npm run test:reliability`, docs/reliability.md): the real server takes a mixed load (creates with
 * and without confirm, confirms, refunds, each with an Idempotency-Key) and is SIGKILLed after a random number of
 * acknowledged calls, then started again on the same data, RAIL_KILL_CYCLES times (default 5) on each engine.
 * After every restart:
 * - every request that was in flight at the kill is sent again with its Idempotency-Key and must answer 200 (a
 *   replay or a first run), and no client reference may ever have two payments or two refunds;
 * - every acknowledged payment and refund exists with its acknowledged status, or a later one the rail allows;
 * - the recovery job leaves no payment in processing and no refund in pending (bounded wait);
 * - no payment has refunds (not failed) above its amount_received.
 * The figures of a long run (RAIL_KILL_CYCLES=100) are in docs/reliability.md.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { openDatabase, type Engine } from '../storage/database';
import { createTestDatabase, postgresReachable } from '../test-support/harness';
import { callApi, startServer, type ServerProcess } from '../test-support/server-process';

const CYCLES = Number(process.env['RAIL_KILL_CYCLES'] ?? 5);
const WORKERS = 8;
const SETTLE_WAIT_MS = 20_000;
/** Acknowledged calls per cycle before the kill: drawn between min and max. */
const KILL_AFTER_ACKED = { min: 10, max: 120 };
/** A server that acknowledges nothing for this long is hung, not slow. */
const STALL_LIMIT_MS = 30_000;
const ENV = { RAIL_PAYMENT_SYNC_INTERVAL_MS: '200', RAIL_RAIL_CALL_TIMEOUT_MS: '300', RAIL_RECOVER_AFTER_MS: '1000' };

type Kind = 'create' | 'create_confirm' | 'confirm' | 'refund';

/** One call with its Idempotency-Key, kept until it is acknowledged (sent again after a kill if it was not). */
interface Call {
  kind: Kind;
  key: string;
  path: string;
  body: Record<string, unknown>;
  /** The client's own reference: metadata.client_ref of a payment, or the refund's reason. */
  ref: string;
}

interface Ledger {
  /** Acknowledged payments: id -> status acknowledged last. */
  payments: Map<string, string>;
  /** Acknowledged refunds: id -> status. */
  refunds: Map<string, string>;
  /** Payments that can be refunded (acknowledged succeeded). */
  refundable: string[];
  /** Payments created and not confirmed yet. */
  unconfirmed: string[];
  /** Calls sent and not acknowledged when the process died. */
  inFlight: Call[];
  /** Every client_ref sent, to look for duplicates. */
  refs: Set<string>;
  acked: number;
  /** Calls sent again after a restart. */
  retried: number;
  /** Payments in processing and refunds in pending found right after a restart (what recovery had to settle). */
  stuckAtRestart: number;
}

let sequence = 0;

function nextCall(ledger: Ledger): Call {
  sequence += 1;
  const n = sequence;
  const vpa = n % 7 === 0 ? 'failure@upi' : 'success@upi';
  const choice = n % 4;
  if (choice === 3 && ledger.refundable.length > 0) {
    const paymentId = ledger.refundable[randomInt(ledger.refundable.length)]!;
    const ref = `ref_${n}`;
    return { kind: 'refund', key: `k-${n}`, path: '/refunds', body: { payment_id: paymentId, amount: 300, reason: ref }, ref };
  }
  if (choice === 2 && ledger.unconfirmed.length > 0) {
    const paymentId = ledger.unconfirmed.shift()!;
    return { kind: 'confirm', key: `k-${n}`, path: `/payments/${paymentId}/confirm`, body: {}, ref: paymentId };
  }
  const ref = `pay_${n}`;
  const confirm = choice === 1;
  return {
    kind: confirm ? 'create_confirm' : 'create',
    key: `k-${n}`,
    path: '/payments',
    body: { amount: 1000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } }, metadata: { client_ref: ref }, ...(confirm ? { confirm: true } : {}) },
    ref,
  };
}

function acknowledge(ledger: Ledger, call: Call, body: Record<string, unknown>): void {
  ledger.acked += 1;
  if (call.kind === 'refund') {
    ledger.refunds.set(String(body['refund_id']), String(body['status']));
    return;
  }
  const paymentId = String(body['payment_id']);
  const status = String(body['status']);
  ledger.payments.set(paymentId, status);
  if (status === 'succeeded' && !ledger.refundable.includes(paymentId)) ledger.refundable.push(paymentId);
  if (call.kind === 'create' && status === 'requires_confirmation') ledger.unconfirmed.push(paymentId);
}

async function send(server: ServerProcess, ledger: Ledger, call: Call): Promise<void> {
  if (call.kind !== 'confirm') ledger.refs.add(call.ref);
  const answer = await callApi(server.baseUrl, 'POST', call.path, call.body, { 'idempotency-key': call.key });
  // 4xx are answers too (a refund above what is left, say): acknowledged, nothing to check later.
  if (answer.status === 200) acknowledge(ledger, call, answer.body);
  else if (answer.status >= 500) throw new Error(`${call.path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/** Workers send calls until the process dies; what they had in flight is kept for the retry. */
async function loadUntilKilled(server: ServerProcess, ledger: Ledger): Promise<void> {
  let alive = true;
  const worker = async () => {
    while (alive) {
      const call = nextCall(ledger);
      try {
        await send(server, ledger, call);
      } catch (error) {
        if (alive && !(error instanceof TypeError)) throw error;
        ledger.inFlight.push(call);
        return;
      }
    }
  };
  let failure: unknown;
  const workers = Array.from({ length: WORKERS }, () => worker().catch((error: unknown) => {
    failure ??= error;
  }));
  // The kill falls after a random number of acknowledged calls, not after a random time: a slow machine then gets
  // the same load per cycle instead of failing a throughput floor. Only a server that stops answering fails here.
  const target = ledger.acked + KILL_AFTER_ACKED.min + randomInt(KILL_AFTER_ACKED.max - KILL_AFTER_ACKED.min);
  let seen = ledger.acked;
  let stalledSince = Date.now();
  while (ledger.acked < target && failure === undefined) {
    if (ledger.acked !== seen) [seen, stalledSince] = [ledger.acked, Date.now()];
    if (Date.now() - stalledSince > STALL_LIMIT_MS) throw new Error(`the server acknowledged nothing for ${STALL_LIMIT_MS} ms (${ledger.acked} calls so far)`);
    await new Promise((r) => setTimeout(r, 5));
  }
  if (failure !== undefined) throw failure;
  alive = false;
  await server.kill();
  await Promise.all(workers);
}

async function checkAfterRestart(server: ServerProcess, ledger: Ledger, database: { databaseUrl?: string | undefined }, sqliteFile: string): Promise<void> {
  // Retries with the same keys: each answers (replay or first run), never a 5xx.
  const retries = ledger.inFlight.splice(0);
  ledger.retried += retries.length;
  for (const call of retries) await send(server, ledger, call);

  const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile, poolSize: 1 });
  try {
    const until = Date.now() + SETTLE_WAIT_MS;
    let stuck: { payments: number; refunds: number } = { payments: -1, refunds: -1 };
    let first = true;
    while (Date.now() < until) {
      const payments = await db.selectFrom('payments').select(sql<number>`count(*)`.as('n')).where('status', '=', 'processing').executeTakeFirstOrThrow();
      const refunds = await db.selectFrom('refunds').select(sql<number>`count(*)`.as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow();
      stuck = { payments: Number(payments.n), refunds: Number(refunds.n) };
      if (first) ledger.stuckAtRestart += stuck.payments + stuck.refunds;
      first = false;
      if (stuck.payments === 0 && stuck.refunds === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(stuck, 'left in processing / pending after recovery').toEqual({ payments: 0, refunds: 0 });

    const payments = await db.selectFrom('payments').select(['payment_id', 'status', 'metadata', 'amount_received']).execute();
    const byRef = new Map<string, number>();
    for (const row of payments) {
      const ref = (JSON.parse(row.metadata ?? '{}') as { client_ref?: string }).client_ref;
      if (ref !== undefined) byRef.set(ref, (byRef.get(ref) ?? 0) + 1);
    }
    expect([...byRef].filter(([, count]) => count > 1), 'client references with two payments').toEqual([]);
    const statusOf = new Map(payments.map((row) => [row.payment_id, row.status]));
    for (const [paymentId, acked] of ledger.payments) {
      const now = statusOf.get(paymentId);
      expect(now, `${paymentId} lost`).toBeDefined();
      if (now !== acked) expect([acked, now], paymentId).toSatisfy(([from, to]) => LATER[from as string]?.includes(to as string) ?? false);
    }
    const refunds = await db.selectFrom('refunds').select(['refund_id', 'payment_id', 'status', 'amount', 'reason']).execute();
    const refundRefs = new Map<string, number>();
    for (const row of refunds) if (row.reason !== null) refundRefs.set(row.reason, (refundRefs.get(row.reason) ?? 0) + 1);
    expect([...refundRefs].filter(([, count]) => count > 1), 'client references with two refunds').toEqual([]);
    const refundStatus = new Map(refunds.map((row) => [row.refund_id, row.status]));
    for (const [refundId, acked] of ledger.refunds) {
      const now = refundStatus.get(refundId);
      expect(now, `${refundId} lost`).toBeDefined();
      if (acked !== 'pending') expect(now, refundId).toBe(acked);
    }
    const received = new Map(payments.map((row) => [row.payment_id, Number(row.amount_received ?? 0)]));
    const refunded = new Map<string, number>();
    for (const row of refunds) if (row.status !== 'failed') refunded.set(row.payment_id, (refunded.get(row.payment_id) ?? 0) + Number(row.amount));
    expect([...refunded].filter(([paymentId, sum]) => sum > (received.get(paymentId) ?? 0)), 'over-refunded payments').toEqual([]);
  } finally {
    await db.destroy();
  }
}

/** Statuses an acknowledged status may have moved to since (a confirm or a recovery after it). */
const LATER: Record<string, string[]> = {
  requires_confirmation: ['succeeded', 'failed'],
  processing: ['succeeded', 'failed'],
};

async function killCycles(engine: Engine): Promise<void> {
  const database = await createTestDatabase(engine);
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-kill-'));
  const sqliteFile = join(dataDir, 'rail.sqlite');
  const ledger: Ledger = { payments: new Map(), refunds: new Map(), refundable: [], unconfirmed: [], inFlight: [], refs: new Set(), acked: 0, retried: 0, stuckAtRestart: 0 };
  let server: ServerProcess | undefined;
  try {
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      server = await startServer({ dataDir, databaseUrl: database.databaseUrl, env: ENV });
      await checkAfterRestart(server, ledger, database, sqliteFile);
      await loadUntilKilled(server, ledger);
    }
    server = await startServer({ dataDir, databaseUrl: database.databaseUrl, env: ENV });
    await checkAfterRestart(server, ledger, database, sqliteFile);
    console.info(`[reliability] ${engine}: ${CYCLES} kills, ${ledger.acked} acknowledged calls, ${ledger.payments.size} payments, ${ledger.refunds.size} refunds, ${ledger.retried} calls retried after a kill, ${ledger.stuckAtRestart} payments or refunds in flight at a kill settled by recovery`);
  } finally {
    await server?.kill();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

const reachable = await postgresReachable();
const timeout = 60_000 + CYCLES * 30_000;

describe('kill cycles: SIGKILL under mixed load, then restart and recovery', () => {
  test('on SQLite', () => killCycles('sqlite'), timeout);
  test.skipIf(!reachable)('on PostgreSQL', () => killCycles('postgres'), timeout);
});
