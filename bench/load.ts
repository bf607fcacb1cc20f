/**
 * Load generation for `npm run bench`: autocannon drives the create -> confirm chain over keep-alive connections
 * (its own ceiling is measured on a bare Hono handler in the same run), and an open-loop fetch client measures the
 * latency of whole payments at a fixed arrival rate, counted from each payment's scheduled start so that queueing
 * is not hidden (no coordinated omission).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, ROOT } from '../server/src/test-support/server-process';

export const CREATE_BODY = JSON.stringify({ amount: 10_000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } });

export interface ChainResult {
  calls: number;
  callsPerSecond: number;
  paymentsPerSecond: number;
  errors: number;
  callP50: number;
  callP99: number;
}

interface ChainContext {
  paymentId?: string;
  keySuffix?: string;
}

/** create then confirm, on `connections` keep-alive connections for `seconds`; optional Idempotency-Key per call. */
export async function runChain(
  baseUrl: string,
  options: { connections: number; seconds: number; apiKey?: string; idempotency?: boolean; overallRate?: number },
): Promise<ChainResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.apiKey ? { 'api-key': options.apiKey } : {}) };
  const keyed = (request: autocannon.Request, suffix: string): autocannon.Request =>
    options.idempotency ? { ...request, headers: { ...request.headers, 'idempotency-key': `${randomUUID()}-${suffix}` } } : request;
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.seconds,
    ...(options.overallRate !== undefined ? { overallRate: Math.max(1, Math.round(options.overallRate)) } : {}),
    requests: [
      {
        method: 'POST',
        path: '/payments',
        headers,
        body: CREATE_BODY,
        setupRequest: (request) => keyed(request, 'c'),
        onResponse: (status, body, context) => {
          (context as ChainContext).paymentId = status === 200 ? (JSON.parse(body) as { payment_id: string }).payment_id : undefined;
        },
      },
      {
        method: 'POST',
        headers,
        body: '{}',
        setupRequest: (request, context) => {
          const paymentId = (context as ChainContext).paymentId;
          // No payment: restart the chain with a create (autocannon resets on a falsy request).
          return (paymentId === undefined ? undefined : keyed({ ...request, path: `/payments/${paymentId}/confirm` }, 'f')) as autocannon.Request;
        },
      },
    ],
  });
  const calls = result.requests.total;
  const errors = result.non2xx + result.errors + result.timeouts;
  return {
    calls,
    callsPerSecond: calls / result.duration,
    paymentsPerSecond: calls / 2 / result.duration,
    errors,
    callP50: result.latency.p50,
    callP99: result.latency.p99,
  };
}

export interface PaymentLatency {
  payments: number;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Whole payments (create then confirm) started at `perSecond` for `seconds`; latency from the scheduled start. The
 * bare handler (bench/bare-server.mjs) answers the same two calls, so the same client against it at the same rate
 * is the client's own share of the tail (its timers and fetch on the cores it shares with the server).
 */
export async function openLoopPayments(baseUrl: string, apiKey: string, perSecond: number, seconds: number): Promise<PaymentLatency> {
  const headers = { 'api-key': apiKey, 'content-type': 'application/json' };
  const latencies: number[] = [];
  let errors = 0;
  const total = Math.max(1, Math.floor(perSecond * seconds));
  const started = performance.now();
  const one = async (scheduled: number) => {
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((resolveWait) => setTimeout(resolveWait, wait));
    try {
      const created = await fetch(`${baseUrl}/payments`, { method: 'POST', headers, body: CREATE_BODY });
      const { payment_id: paymentId } = (await created.json()) as { payment_id?: string };
      if (created.status !== 200 || paymentId === undefined) throw new Error('create failed');
      const confirmed = await fetch(`${baseUrl}/payments/${paymentId}/confirm`, { method: 'POST', headers, body: '{}' });
      const body = (await confirmed.json()) as { status?: string };
      if (confirmed.status !== 200 || body.status !== 'succeeded') throw new Error('confirm failed');
      latencies.push(performance.now() - scheduled);
    } catch {
      errors += 1;
    }
  };
  await Promise.all(Array.from({ length: total }, (_, i) => one(started + (i * 1000) / perSecond)));
  latencies.sort((a, b) => a - b);
  return {
    payments: latencies.length,
    errors,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
  };
}

/** The bare Hono handler (bench/bare-server.mjs) in its own process: the baseline of the HTTP stack and the client. */
export async function startBareHandler(): Promise<{ url: string; startupMs: number; stop(): void }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bench/bare-server.mjs', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolveReady) => child.stdout.once('data', () => resolveReady()));
  return { url: `http://127.0.0.1:${port}`, startupMs: performance.now() - started, stop: () => child.kill('SIGTERM') };
}

/**
 * The disk's own durable-write latency: `count` 4 KB writes each followed by an fdatasync, one at a time, to a file
 * in `dir`, at `perSecond`. Every acknowledged Rail write waits for one such sync (SQLite's WAL, PostgreSQL's
 * commit), and a payment for several in a row, so their tail is a floor under a payment's.
 */
export async function fdatasyncLatency(dir: string, perSecond: number, count: number): Promise<{ p50: number; p99: number }> {
  const path = join(dir, 'fdatasync-probe');
  const fd = openSync(path, 'w');
  const page = Buffer.alloc(4096, 1);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      writeSync(fd, page, 0, page.length, (i % 64) * page.length);
      const started = performance.now();
      fdatasyncSync(fd);
      latencies.push(performance.now() - started);
      await new Promise((resolveWait) => setTimeout(resolveWait, 1000 / perSecond));
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}
