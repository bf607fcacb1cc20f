/**
 * Load generation for `npm run bench`: autocannon drives the create -> confirm chain over keep-alive connections
 * (its own ceiling is measured on a bare Hono handler in the same run), and an open-loop node:http client measures the
 * latency of whole payments at a fixed arrival rate, counted from each payment's scheduled start so that queueing
 * is not hidden (no coordinated omission).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, ROOT } from '../server/src/test-support/server-process';
import { percentile } from './process-metrics';

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

/**
 * The open loop's first seconds, run on the same schedule and connections but not timed into the figure: the figure
 * is the steady state at that rate. Against Rail, the first second of an open loop that follows the closed loop was
 * its slowest in most loops (p99 40-101 ms where the later seconds gave 8-44 ms on a busy machine; 17-54 against
 * 5-42 on a calmer one), idle pause or not: V8 adapts Node's HTTP layer and the server's code from autocannon's
 * requests to this client's (50-92 functions optimized again and 4-25 deoptimizations in that second, some 10
 * optimizations by the fourth). The bare handler showed nothing of it (tenth session, docs/benchmarks-reading.md).
 */
const OPEN_LOOP_WARMUP_SECONDS = 1;

/**
 * V8's full collection, when this process runs with `--expose-gc` (npm run bench, bench/ab.ts's usage): the open loop
 * runs it before its schedule starts. The client shares the bench's process with what autocannon's loops left behind,
 * and a probe saw its own mark-compacts of 18 and 32 ms 0.5-1.2 s into an open loop that followed them, each a
 * cluster of slow payments that was the client's, not the server's (docs/benchmarks-reading.md, thirtieth session).
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** Payments of openLoopPayments's untimed first second at `perSecond`. */
export const OPEN_LOOP_WARMUP_PAYMENTS = (perSecond: number) => Math.floor(perSecond * OPEN_LOOP_WARMUP_SECONDS);

/**
 * Whole payments (create then confirm) started at `perSecond` for OPEN_LOOP_WARMUP_SECONDS and then `seconds`;
 * latency from the scheduled start, of the payments due after the warm-up. The bare handler (bench/bare-server.mjs)
 * answers the same two calls, so the same client against it at the same rate is the client's own share of the tail
 * (its timer and sockets on the cores it shares with the server).
 */
export async function openLoopPayments(
  baseUrl: string,
  apiKey: string,
  perSecond: number,
  seconds: number,
  options: { idempotency?: boolean } = {},
): Promise<PaymentLatency> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: OPEN_LOOP_SOCKETS, scheduling: 'fifo' });
  const headers: Record<string, string> = { 'api-key': apiKey, 'content-type': 'application/json' };
  // With a fresh Idempotency-Key on every call when asked (bench/ab.ts keyed rounds).
  const post = (path: string, body: string) =>
    postJson(agent, url, path, options.idempotency ? { ...headers, 'idempotency-key': randomUUID() } : headers, body);
  const latencies: number[] = [];
  let errors = 0;
  const warmup = OPEN_LOOP_WARMUP_PAYMENTS(perSecond);
  const total = warmup + Math.max(1, Math.floor(perSecond * seconds));
  const one = async (scheduled: number, timed: boolean) => {
    try {
      const created = await post('/payments', CREATE_BODY);
      const paymentId = (created.body as { payment_id?: string }).payment_id;
      if (created.status !== 200 || paymentId === undefined) throw new Error('create failed');
      const confirmed = await post(`/payments/${paymentId}/confirm`, '{}');
      if (confirmed.status !== 200 || (confirmed.body as { status?: string }).status !== 'succeeded') throw new Error('confirm failed');
      if (timed) latencies.push(performance.now() - scheduled);
    } catch {
      errors += 1;
    }
  };
  collectGarbage?.();
  const started = performance.now();
  const dueAt = (payment: number) => started + (payment * 1000) / perSecond;
  const running: Promise<void>[] = [];
  // One timer for the whole schedule: every payment that is due starts at each tick, and is timed from when it was
  // due, so a late tick (the client's own delay) counts against the figure rather than hiding.
  await new Promise<void>((resolveAll) => {
    let next = 0;
    const tick = () => {
      for (const now = performance.now(); next < total && dueAt(next) <= now; next += 1) running.push(one(dueAt(next), next >= warmup));
      if (next >= total) resolveAll();
      else setTimeout(tick, Math.max(0, dueAt(next) - performance.now()));
    };
    tick();
  });
  await Promise.all(running);
  agent.destroy();
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

/** Keep-alive connections of the open loop's client at most (a few are busy at half load; more only under a stall). */
const OPEN_LOOP_SOCKETS = 64;

/**
 * The open loop's client: node:http over a pool of keep-alive connections. It costs the shared cores a fraction of
 * what fetch does per call (measured: fetch took 0.5 to 0.7 of a core at 1,100 calls/s), so the figure is the
 * server's latency rather than the client's.
 */
function postJson(agent: Agent, url: URL, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolvePost, rejectPost) => {
    const request = httpRequest(
      { agent, host: url.hostname, port: url.port, path, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', rejectPost);
        response.on('end', () => {
          try {
            resolvePost({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (error) {
            rejectPost(error);
          }
        });
      },
    );
    request.on('error', rejectPost);
    request.end(body);
  });
}

/**
 * The bare Hono handler (bench/bare-server.mjs) in its own process: the baseline of the HTTP stack and the client.
 * `nodeFlags` go before the script; `stop()` resolves once the process has exited.
 */
export async function startBareHandler(nodeFlags: readonly string[] = []): Promise<{ url: string; pid: number; startupMs: number; stop(): Promise<void> }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, 'bench/bare-server.mjs', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  await new Promise<void>((resolveReady) => child.stdout.once('data', () => resolveReady()));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, startupMs: performance.now() - started, stop };
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
