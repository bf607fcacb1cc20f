/**
 * A/B of two builds of the compiled server on the same machine in the same window: both servers run side by side
 * (each with its own SQLite store), and short closed-loop rounds of create -> confirm alternate between them
 * (A B B A A B ...), so that the load of a shared machine falls on both alike. Prints each round and the ratios B/A
 * of the medians: calls/s, and the server's CPU time per call (user + system from /proc, which other processes'
 * load disturbs far less than throughput); never part of the test run.
 *
 *   node --expose-gc --import tsx bench/ab.ts <A/main.js> <B/main.js> [rounds=4] [seconds=5] [keyed=0|1|01]
 * keyed: 0 without Idempotency-Key, 1 with one on every call, 01 A without and B with (the key's overhead when A and
 * B are the same build).
 * Environment: BENCH_CONNECTIONS (default 16), DATABASE_URL_A / DATABASE_URL_B to run on PostgreSQL instead (a local
 * one: the rounds then print its CPU per call too, every postgres process's, as only one server loads it at a time).
 *
 * BENCH_OPEN_LOOP=<payments/s>|half switches the rounds to the open loop of the bench's half-load figure (whole
 * payments started at a fixed rate, timed from their scheduled start; `half` is half of A's closed-loop peak taken
 * after the warm-up; `keyed` applies as in the closed loop). Each round also runs the same client at the same rate
 * against the bare Hono handler, the client's own tail on this machine. Prints each round's p50 / p90 / p99 / max,
 * each server's CPU per call (main thread, all threads; /proc) and RSS, the medians of p99 (B/A, and each build's
 * over the bare handler's), of max and of CPU per call (B/A: at a fixed rate, the steadiest measure of a change's
 * cost on a shared machine), and the RSS after the rounds. The servers run with production's command line and
 * environment, as `npm start` and bench/run.ts run them (PRODUCTION_NODE_FLAGS, PRODUCTION_ENV: V8's young generation
 * and glibc's arenas, which the RSS figures depend on). BENCH_SERVER_FLAGS adds node flags to both servers (e.g.
 * --trace-gc), BENCH_SERVER_FLAGS_A / BENCH_SERVER_FLAGS_B to one (the same build with and without a V8 flag);
 * BENCH_ENV_A / BENCH_ENV_B (`NAME=value ...`) set one server's environment (RAIL_PG_ANALYZE=off, say).
 */
import { FIXED_SECRET_KEY } from '../server/src/test-support/server-process';
import { OPEN_LOOP_WARMUP_PAYMENTS, openLoopPayments, runChain, startBareHandler, type ChainResult, type PaymentLatency } from './load';
import { bootServer, mainThreadCpuMs, median, postgresCpuMs, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, processCpuMs, rssMb, tempDir, type BootedServer } from './process-metrics';

const [pathA, pathB, roundsArg = '4', secondsArg = '5', keyedArg = '0'] = process.argv.slice(2);
if (pathA === undefined || pathB === undefined) throw new Error('usage: bench/ab.ts <A/main.js> <B/main.js> [rounds] [seconds] [keyed]');
const rounds = Number(roundsArg);
const seconds = Number(secondsArg);
const keyedFor = (which: number) => keyedArg === '1' || (keyedArg === '01' && which === 1);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const openLoop = process.env['BENCH_OPEN_LOOP'];
/** Node flags of `BENCH_SERVER_FLAGS` (both servers) and of `BENCH_SERVER_FLAGS_A` or `_B` (one). */
const serverFlags = (which: number) =>
  [process.env['BENCH_SERVER_FLAGS'], process.env[which === 0 ? 'BENCH_SERVER_FLAGS_A' : 'BENCH_SERVER_FLAGS_B']].join(' ').split(' ').filter((flag) => flag !== '');
/** `NAME=value NAME=value` (BENCH_ENV_A, BENCH_ENV_B) as one server's extra environment. */
const serverEnv = (pairs = '') =>
  Object.fromEntries(pairs.split(' ').filter((pair) => pair.includes('=')).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));


const dirs = [tempDir('rail-ab-a-'), tempDir('rail-ab-b-')];
const servers: BootedServer[] = [];
let bare: Awaited<ReturnType<typeof startBareHandler>> | undefined;
let booting: Promise<unknown> = Promise.resolve();
let cleaning: Promise<void> | undefined;
/**
 * Stops what this run started (the two servers, the bare handler) and removes the data directories, once: on the
 * way out, on an error, and on SIGINT/SIGTERM, which would otherwise leave the servers running without this process.
 */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    // A server still booting is stopped once it is up (bootServer stops its own child when the boot fails).
    await booting.catch(() => {});
    await bare?.stop();
    await Promise.all(servers.map((server) => server.stop()));
    for (const dir of dirs) dir.remove();
  })();
  return cleaning;
}
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping the servers`);
    void cleanUp().finally(() => process.exit(code));
  });
}
async function boot(path: string, which: number): Promise<void> {
  if (cleaning) return;
  // Production's command line and environment (bench/run.ts's), which the flags and environment given add to.
  const booted = bootServer([...PRODUCTION_NODE_FLAGS, ...serverFlags(which), path], {
    dataDir: dirs[which]!.path,
    databaseUrl: process.env[which === 0 ? 'DATABASE_URL_A' : 'DATABASE_URL_B'],
    env: { ...PRODUCTION_ENV, ...serverEnv(process.env[which === 0 ? 'BENCH_ENV_A' : 'BENCH_ENV_B']) },
  });
  booting = booted;
  servers.push(await booted);
}
try {
  await boot(pathA, 0);
  await boot(pathB, 1);
} catch (error) {
  await cleanUp();
  throw error;
}
// A signal during the boots: its handler stops what started and exits; no round starts.
if (cleaning) await new Promise<never>(() => {});
if (openLoop !== undefined) {
  try {
    await openLoopRounds(openLoop);
  } finally {
    await cleanUp();
  }
  process.exit(0);
}
const results: ChainResult[][] = [[], []];
const cpuPerCall: number[][] = [[], []];
/** On PostgreSQL: the database's CPU per call in each round (only that round's server loads it). */
const onPostgres = process.env['DATABASE_URL_A'] !== undefined || process.env['DATABASE_URL_B'] !== undefined;
const databaseCpuPerCall: number[][] = [[], []];
try {
  for (const [which, server] of servers.entries()) await runChain(server.baseUrl, { connections, seconds: 2, apiKey: FIXED_SECRET_KEY, idempotency: keyedFor(which) });
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const cpuBefore = processCpuMs(servers[which]!.child.pid!);
      const databaseBefore = onPostgres ? postgresCpuMs() : 0;
      const result = await runChain(servers[which]!.baseUrl, { connections, seconds, apiKey: FIXED_SECRET_KEY, idempotency: keyedFor(which) });
      const perCall = (processCpuMs(servers[which]!.child.pid!) - cpuBefore) / result.calls;
      const databasePerCall = onPostgres ? (postgresCpuMs() - databaseBefore) / result.calls : 0;
      results[which]!.push(result);
      cpuPerCall[which]!.push(perCall);
      databaseCpuPerCall[which]!.push(databasePerCall);
      const rss = rssMb(servers[which]!.child.pid!);
      const database = onPostgres ? `, PostgreSQL ${databasePerCall.toFixed(3)} ms/call` : '';
      console.log(`round ${round} ${which === 0 ? 'A' : 'B'}: ${result.callsPerSecond.toFixed(0)} calls/s, p99 ${result.callP99} ms, errors ${result.errors}, cpu ${perCall.toFixed(3)} ms/call${database}, rss ${rss.toFixed(0)} MB`);
    }
  }
  const [a, b] = results.map((list) => median(list.map((r) => r.callsPerSecond))) as [number, number];
  const ratios = results[0]!.map((r, i) => (results[1]![i]!.callsPerSecond / r.callsPerSecond).toFixed(2));
  console.log(`median calls/s A ${a.toFixed(0)} B ${b.toFixed(0)}: B/A ${(b / a).toFixed(2)} (per round ${ratios.join(', ')})`);
  const [ca, cb] = cpuPerCall.map(median) as [number, number];
  const cpuRatios = cpuPerCall[0]!.map((a, i) => (cpuPerCall[1]![i]! / a).toFixed(2));
  console.log(`median cpu ms/call A ${ca.toFixed(3)} B ${cb.toFixed(3)}: B/A ${(cb / ca).toFixed(2)} (per round ${cpuRatios.join(', ')})`);
  if (onPostgres) {
    const [da, db] = databaseCpuPerCall.map(median) as [number, number];
    const databaseRatios = databaseCpuPerCall[0]!.map((a, i) => (databaseCpuPerCall[1]![i]! / a).toFixed(2));
    console.log(`median PostgreSQL cpu ms/call A ${da.toFixed(3)} B ${db.toFixed(3)}: B/A ${(db / da).toFixed(2)} (per round ${databaseRatios.join(', ')})`);
  }
  const [pa, pb] = results.map((list) => median(list.map((r) => r.callP99))) as [number, number];
  console.log(`median call p99 A ${pa} ms B ${pb} ms; rss A ${rssMb(servers[0]!.child.pid!).toFixed(0)} MB B ${rssMb(servers[1]!.child.pid!).toFixed(0)} MB`);
} finally {
  await cleanUp();
}

async function openLoopRounds(rateArg: string): Promise<void> {
  bare = await startBareHandler();
  try {
    for (const [which, server] of servers.entries()) await runChain(server.baseUrl, { connections, seconds: 2, apiKey: FIXED_SECRET_KEY, idempotency: keyedFor(which) });
    const peak = rateArg === 'half' ? (await runChain(servers[0]!.baseUrl, { connections, seconds: 3, apiKey: FIXED_SECRET_KEY })).paymentsPerSecond : undefined;
    const rate = peak === undefined ? Number(rateArg) : peak / 2;
    console.log(`open loop at ${rate.toFixed(0)} payments/s${peak === undefined ? '' : ` (half of A's closed-loop ${peak.toFixed(0)})`}, ${seconds} s per round`);
    const latencies: PaymentLatency[][] = [[], [], []];
    // CPU per call at the same fixed rate: the main thread's and the whole process's, which the machine's other load
    // moves far less than a closed loop's throughput.
    const cpu: { main: number; all: number }[][] = [[], []];
    const show = (l: PaymentLatency) => `p50 ${l.p50.toFixed(1)} p90 ${l.p90.toFixed(1)} p99 ${l.p99.toFixed(1)} max ${l.max.toFixed(1)} ms, errors ${l.errors}`;
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const which of order) {
        const pid = which === 2 ? undefined : servers[which]!.child.pid!;
        const before = pid === undefined ? undefined : { main: mainThreadCpuMs(pid), all: processCpuMs(pid) };
        const url = which === 2 ? bare.url : servers[which]!.baseUrl;
        const latency = await openLoopPayments(url, FIXED_SECRET_KEY, rate, seconds, { idempotency: which !== 2 && keyedFor(which) });
        latencies[which]!.push(latency);
        let shown = '';
        if (pid !== undefined && before !== undefined) {
          // Every payment of the loop, its untimed first second included, is two calls.
          const calls = 2 * (latency.payments + latency.errors + OPEN_LOOP_WARMUP_PAYMENTS(rate));
          const used = { main: (1000 * (mainThreadCpuMs(pid) - before.main)) / calls, all: (1000 * (processCpuMs(pid) - before.all)) / calls };
          cpu[which]!.push(used);
          shown = `, cpu ${used.main.toFixed(0)} us/call main thread, ${used.all.toFixed(0)} us all threads, rss ${rssMb(pid).toFixed(0)} MB`;
        }
        console.log(`round ${round} ${['A', 'B', 'bare'][which]}: ${show(latency)}${shown}`);
      }
    }
    for (const part of ['main', 'all'] as const) {
      const [a, b] = cpu.map((list) => median(list.map((used) => used[part]))) as [number, number];
      const perRound = cpu[0]!.map((used, i) => (cpu[1]![i]![part] / used[part]).toFixed(2));
      console.log(`median cpu us/call (${part === 'main' ? 'main thread' : 'all threads'}) A ${a.toFixed(0)} B ${b.toFixed(0)}: B/A ${(b / a).toFixed(3)} (per round ${perRound.join(', ')})`);
    }
    const [a, b, base] = latencies.map((list) => median(list.map((l) => l.p99))) as [number, number, number];
    console.log(`median p99 A ${a.toFixed(1)} B ${b.toFixed(1)} bare ${base.toFixed(1)} ms: B/A ${(b / a).toFixed(2)}, A/bare ${(a / base).toFixed(2)}, B/bare ${(b / base).toFixed(2)}`);
    const [a50, b50, base50] = latencies.map((list) => median(list.map((l) => l.p50))) as [number, number, number];
    console.log(`median p50 A ${a50.toFixed(1)} B ${b50.toFixed(1)} bare ${base50.toFixed(1)} ms`);
    const [amax, bmax] = latencies.map((list) => median(list.map((l) => l.max))) as [number, number];
    console.log(`median max A ${amax.toFixed(1)} B ${bmax.toFixed(1)} ms; rss after the rounds A ${rssMb(servers[0]!.child.pid!).toFixed(0)} MB B ${rssMb(servers[1]!.child.pid!).toFixed(0)} MB`);
  } finally {
    await bare.stop();
    bare = undefined;
  }
}
