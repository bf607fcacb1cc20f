/**
 * `npm run bench`: create+confirm throughput and latency over HTTP against the real server process (main.ts) on
 * loopback, on SQLite and (when reachable) PostgreSQL. Closed model: CONCURRENCY clients, each looping
 * create -> confirm (UPI success@upi, simulator) for SECONDS after a short warm-up. Prints a table and writes
 * docs/benchmarks.md. Never part of the test run.
 *
 * Environment: BENCH_SECONDS (default 10), BENCH_CONCURRENCY (default 16), BENCH_POSTGRES_URL (default: the
 * test PostgreSQL; a fresh database is created and dropped).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, postgresReachable } from '../server/src/test-support/harness';
import { FIXED_SECRET_KEY, ROOT, startServer } from '../server/src/test-support/server-process';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const WARMUP_MS = 1_500;

interface Result {
  scenario: string;
  payments: number;
  errors: number;
  seconds: number;
  paymentsPerSecond: number;
  callsPerSecond: number;
  createP50: number;
  createP99: number;
  confirmP50: number;
  confirmP99: number;
  paymentP50: number;
  paymentP99: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function call(baseUrl: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'api-key': FIXED_SECRET_KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function scenario(name: string, databaseUrl: string | undefined, withIdempotencyKeys: boolean): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-bench-'));
  const server = await startServer({ dataDir, databaseUrl, logLevel: 'error' });
  const create: number[] = [];
  const confirm: number[] = [];
  const payment: number[] = [];
  let errors = 0;
  let measuring = false;
  let running = true;
  let seq = 0;
  const worker = async () => {
    while (running) {
      const n = (seq += 1);
      const keys = (suffix: string): Record<string, string> => (withIdempotencyKeys ? { 'idempotency-key': `bench-${n}-${suffix}` } : {});
      const t0 = performance.now();
      const created = await call(server.baseUrl, '/payments', { amount: 10_000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } }, keys('c'));
      const t1 = performance.now();
      if (created.status !== 200) {
        errors += measuring ? 1 : 0;
        continue;
      }
      const confirmed = await call(server.baseUrl, `/payments/${String(created.json['payment_id'])}/confirm`, {}, keys('f'));
      const t2 = performance.now();
      if (!measuring) continue;
      if (confirmed.status !== 200 || confirmed.json['status'] !== 'succeeded') {
        errors += 1;
        continue;
      }
      create.push(t1 - t0);
      confirm.push(t2 - t1);
      payment.push(t2 - t0);
    }
  };
  try {
    const workers = Array.from({ length: CONCURRENCY }, () => worker());
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    measuring = true;
    const started = performance.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    running = false;
    await Promise.all(workers);
    for (const list of [create, confirm, payment]) list.sort((x, y) => x - y);
    return {
      scenario: name,
      payments: payment.length,
      errors,
      seconds,
      paymentsPerSecond: payment.length / seconds,
      callsPerSecond: (payment.length * 2) / seconds,
      createP50: percentile(create, 50),
      createP99: percentile(create, 99),
      confirmP50: percentile(confirm, 50),
      confirmP99: percentile(confirm, 99),
      paymentP50: percentile(payment, 50),
      paymentP99: percentile(payment, 99),
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));

function table(results: Result[]): string {
  const lines = [
    '| scenario | payments | errors | payments/s | API calls/s | create p50 / p99 (ms) | confirm p50 / p99 (ms) | create+confirm p50 / p99 (ms) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | ${r.payments} | ${r.errors} | ${r.paymentsPerSecond.toFixed(0)} | ${r.callsPerSecond.toFixed(0)} | ${ms(r.createP50)} / ${ms(r.createP99)} | ${ms(r.confirmP50)} / ${ms(r.confirmP99)} | ${ms(r.paymentP50)} / ${ms(r.paymentP99)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const results: Result[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  console.log(`bench: ${SECONDS} s per scenario, concurrency ${CONCURRENCY}, loopback`);
  results.push(await scenario('SQLite', undefined, false));
  results.push(await scenario('SQLite + Idempotency-Key', undefined, true));
  let postgresNote = '';
  if (await postgresReachable()) {
    const database = await createTestDatabase('postgres');
    try {
      results.push(await scenario('PostgreSQL', database.databaseUrl, false));
    } finally {
      await database.drop();
    }
    const database2 = await createTestDatabase('postgres');
    try {
      results.push(await scenario('PostgreSQL + Idempotency-Key', database2.databaseUrl, true));
    } finally {
      await database2.drop();
    }
  } else postgresNote = '\nPostgreSQL was not reachable: its scenarios were not run.\n';
  const rendered = table(results);
  console.log(`\n${rendered}\n${postgresNote}`);

  const machine = `${availableParallelism()} CPUs (nproc) ${cpus()[0]?.model ?? ''}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform} ${process.arch}; 1-minute load average before the run: ${loadBefore.toFixed(1)} (anything near or above the CPU count means other work shared the machine and the numbers are pessimistic)`;
  const best = (engine: string) => results.find((r) => r.scenario === engine);
  const sqlite = best('SQLite');
  const postgres = best('PostgreSQL');
  const doc = `# Benchmarks

Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)}. Indicative, one run.

## Method

- The real server process (\`node --import tsx server/src/main.ts\`, log level error) on loopback, a fresh data
  directory (SQLite, WAL, synchronous=FULL: every commit durable) or a fresh PostgreSQL database (local server,
  fsync on, pool of 10). The client runs in the same machine (it competes for the same CPUs).
- Closed model: ${CONCURRENCY} clients, each looping create (\`POST /payments\`, UPI \`success@upi\`) then confirm
  (\`POST /payments/{id}/confirm\`, test simulator: succeeds at once), for ${SECONDS} s after a ${WARMUP_MS / 1000} s warm-up.
  A payment is two API calls; latency is measured by the client around each HTTP call.
- "+ Idempotency-Key": every call carries a fresh key (claim, run, store the response: two more writes per call).
- Machine: ${machine}.

## Results

${rendered}
${postgresNote}
## Against the anchors (shared/reference/perf-reliability.md §0, §4, §6.3)

| Anchor | Figure | Rail here |
|---|---|---|
| Hyperswitch: whole-app overhead | ~25 ms per payment, no method given [HS-ZO] | create+confirm p50 ${ms(sqlite?.paymentP50 ?? NaN)} ms on SQLite${postgres ? `, ${ms(postgres.paymentP50)} ms on PostgreSQL` : ''} (two calls, client-measured, at concurrency ${CONCURRENCY}) |
| Hyperswitch ops sizing | ~15 RPS per pod (3 GB), 0.1 vCPU per RPS [HS-SCALE] | ${sqlite ? sqlite.callsPerSecond.toFixed(0) : '-'} API calls/s on SQLite${postgres ? `, ${postgres.callsPerSecond.toFixed(0)} on PostgreSQL` : ''}, one process |
| Rec. bar: server overhead per API call | p50 <= 5 ms, p99 <= 25 ms on 2 vCPU [§6.3] | create p50/p99 ${ms(sqlite?.createP50 ?? NaN)}/${ms(sqlite?.createP99 ?? NaN)} ms, confirm ${ms(sqlite?.confirmP50 ?? NaN)}/${ms(sqlite?.confirmP99 ?? NaN)} ms on SQLite at concurrency ${CONCURRENCY} (includes queueing behind ${CONCURRENCY - 1} other clients) |
| Rec. bar: sustained confirm throughput | >= 500 payments/s on 2 vCPU + local PostgreSQL, no hot rows [§6.3] | ${postgres ? `${postgres.paymentsPerSecond.toFixed(0)} payments/s on PostgreSQL` : 'PostgreSQL not measured'}; ${sqlite ? `${sqlite.paymentsPerSecond.toFixed(0)} payments/s on SQLite` : ''} |
| Node HTTP ceiling (hello world, 4 vCPU, pipelined) | hono 40.2k req/s, node:http 47.9k [FB] | not comparable: every call here does a durable commit and JSON validation; the HTTP layer is not the limit |
| Small-box PostgreSQL OLTP | ~4-5k small write tx/s at 8-32 clients on 2 vCPU [MEAS §5.3] | a payment here is ~4-6 statements over 2 API calls plus authentication reads |

Reading: a single Node process is CPU-bound long before the database: the client, the server and (for PostgreSQL)
the database share the same cores. No row is updated by every payment (no hot account), so throughput should
scale with instances on PostgreSQL (see the two-instance test, server/src/multi-instance.test.ts).
`;
  writeFileSync(join(ROOT, 'docs/benchmarks.md'), doc);
  console.log('wrote docs/benchmarks.md');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
