/**
 * `npm run bench`: the server as production runs it (dist/server/main.js, compiled), measured against what the
 * same machine can do in the same run, so that every figure is a ratio to something measured beside it:
 * - a bare Hono POST handler on the same HTTP stack, driven by the same load generator (autocannon): its req/s is
 *   the ceiling of the generator and the HTTP layer together;
 * - pgbench's TPC-B-like transactions on the same PostgreSQL at the same client count.
 * It prints one table and writes docs/benchmarks.md. Never part of the test run.
 *
 * Environment: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 16), BENCH_PROFILE=0 skips the CPU profile,
 * BENCH_SCALE_OUT=0 skips the 1/2/4-process curve on PostgreSQL.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, postgresReachable } from '../server/src/test-support/harness';
import { FIXED_SECRET_KEY, freePort, railEnv, ROOT } from '../server/src/test-support/server-process';
import { fdatasyncLatency, OPEN_LOOP_WARMUP_PAYMENTS, openLoopPayments, runChain, startBareHandler, type ChainResult, type PaymentLatency } from './load';
import { mountBench, mountTable } from './mount';
import { startProfile } from './start-profile';
import { startupBench, startupTable } from './startup';
import { samplePostgresActivity, WAL_FLUSH_WAITS, type PostgresActivity } from './postgres-activity';
import { bootServer, machineSpeed, mainThreadCpuMs, mainThreadScheduling, median, pgbenchOpenLoopLatency, pgbenchTps, postgresCpuMs, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, processCpuMs, rssMb, sampleRssPeak, summarizeProfile, tempDir, type TransactionLatency } from './process-metrics';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const PROFILE = process.env['BENCH_PROFILE'] !== '0';
const SCALE_OUT = process.env['BENCH_SCALE_OUT'] !== '0';
const WARMUP_SECONDS = 2;
/**
 * As production runs it, with the memory settings docs/operations.md gives (and `npm start` uses): a young generation
 * of two 8 MB semi-spaces instead of 16 MB, and two malloc arenas (the launcher maps stack traces itself;
 * --enable-source-maps does not apply to its bundle).
 */
const SERVER = [...PRODUCTION_NODE_FLAGS, 'dist/server/main.js'];

interface EngineResult {
  engine: 'SQLite' | 'PostgreSQL';
  firstBootMs: number;
  /** Spawn to the first 200 of RESTARTS restarts on the engine's store, in order (the last one's server is measured on). */
  restartsMs: number[];
  /** VmRSS 0.5 s after the first 200, and after IDLE_SECONDS with no request (V8's memory reducer has run). */
  rssStartedMb: number;
  rssIdleMb: number;
  rssLoadMb: number;
  /** VmRSS at the end of the engine's load (the closed loop, the Idempotency-Key windows and the half-load loop). */
  rssEndMb: number;
  /** The largest RSS sampled every 250 ms from the warm-up to the end of the half load. */
  rssPeakMb: number;
  plain: ChainResult;
  /** API calls/s against the bare handler's req/s in alternating windows (shareOfBare). */
  share: ShareOfBare;
  /**
   * The server's main thread during `plain`: its CPU as a share of the wall time and per API call, and per call the
   * times it was preempted and the time it waited, runnable, for a CPU.
   */
  mainThread: { busyShare: number; cpuUsPerCall: number; preemptionsPerCall: number; waitingUsPerCall: number };
  idempotency: KeyedOverhead;
  halfLoad: PaymentLatency;
  halfLoadRate: number;
  /** PostgreSQL only: its busy backends during `halfLoad`, sampled every WAIT_SAMPLE_MS, and its WAL meanwhile. */
  halfLoadDatabaseActivity: PostgresActivity | undefined;
  /** The same open-loop client at the same rate against the bare handler, right after: the client's own tail. */
  halfLoadBare: PaymentLatency;
  /** The disk's fdatasync latency right after, at the half-load payment rate times the syncs of a payment. */
  halfLoadSync: { p50: number; p99: number };
  /** PostgreSQL only: the database's own transaction latency at the rate the half load waits for its commits. */
  halfLoadDatabase: TransactionLatency | undefined;
  /** The half-load p99 again, in windows alternating with the bare handler's (repeatedHalfLoad). */
  repeated: RepeatedHalfLoad;
  profile: { category: string; percent: number }[];
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const percent = (part: number, whole: number) => `${fixed((100 * part) / whole, 1)} %`;

async function bareCeiling(): Promise<ChainResult & { startupMs: number }> {
  const bare = await startBareHandler();
  try {
    await runChain(bare.url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    return { ...(await runChain(bare.url, { connections: CONNECTIONS, seconds: SECONDS })), startupMs: bare.startupMs };
  } finally {
    await bare.stop();
  }
}

/**
 * How long the server sits without a request before its idle memory is read. The first seconds after a start still
 * hold the start's garbage in a young generation grown to 16 MB; V8's memory reducer, which starts 8 s after the
 * heap goes quiet, gives it back (some 9 MB). The heap goes quiet only a second or two after the first 200 (the
 * launcher writes its code cache at 1 s, the webhook dispatcher's first polls), so on SQLite the reducer's first pass
 * comes 9 to 10 s after the start. On PostgreSQL it came at 9 s in one start followed by hand and not within 15 s in
 * two bench runs (the server's timers keep the heap less quiet); in a start traced with --trace-gc on the AMD EPYC
 * of the twenty-sixth session, at 16.5-17.8 s, when the server went from 79 to 66 MB and stayed there. 25 s reads
 * the idle server on both engines after that pass. The figure 0.5 s after the start is printed beside it.
 */
const IDLE_SECONDS = 25;
/** Restarts of each engine's server on its store, whose median is its restart figure. */
const RESTARTS = 5;

/**
 * Durable writes a payment waits for one after another: create's insert and confirm's answer. The confirm's claim
 * commits without waiting for its sync (SQLite) or its WAL flush (PostgreSQL): the simulated rail's memory is written
 * after it, and the sync that keeps the answer keeps both (core/shared/rail-call.ts); the rail's ledger write never
 * waits (storage/recovery/sql-store.ts).
 */
const DURABLE_WAITS_PER_PAYMENT: Record<EngineResult['engine'], number> = { SQLite: 2, PostgreSQL: 2 };

/**
 * Payments/s with an Idempotency-Key on every call, and without, in the alternating windows of keyedOverhead; and
 * the server process's CPU time per call in each (user + system, all its threads), which the other work of a shared
 * machine moves far less than it moves throughput, and on PostgreSQL every postgres process's beside it. `groups`
 * holds the overhead of each group of four windows on its own.
 */
interface KeyedOverhead {
  plain: number;
  keyed: number;
  errors: number;
  plainCpuUsPerCall: number;
  keyedCpuUsPerCall: number;
  /** PostgreSQL only: the database's CPU time per call in the same windows. */
  plainDatabaseCpuUsPerCall: number | undefined;
  keyedDatabaseCpuUsPerCall: number | undefined;
  groups: number[];
}

/** keyedOverhead's windows: groups of four, plain, keyed, keyed, plain. */
const KEYED_GROUPS = 2;
const KEYED_WINDOW_SECONDS = SECONDS / 2;
/** shareOfBare's windows: groups of four, bare, Rail, Rail, bare. */
const SHARE_GROUPS = 2;
const SHARE_WINDOW_SECONDS = SECONDS / 2;
/** An engine's time under load: the warm-up, shareOfBare's windows, the closed loop, keyedOverhead's windows, the half load. */
const LOADED_SECONDS = WARMUP_SECONDS + 4 * SHARE_GROUPS * SHARE_WINDOW_SECONDS + SECONDS + 4 * KEYED_GROUPS * KEYED_WINDOW_SECONDS + SECONDS;

/** CPU time per request in shareOfBare's windows (us): the server's (and on PostgreSQL the database's), the generator's. */
interface CpuPerRequest {
  serverUs: number;
  generatorUs: number;
}

/**
 * The server's API calls/s and the bare handler's req/s, pooled over shareOfBare's windows, and each group's share;
 * and the CPU time per request of each side in the same windows.
 */
interface ShareOfBare {
  calls: number;
  bare: number;
  groups: number[];
  cpu: { rail: CpuPerRequest; bare: CpuPerRequest };
}

/** CPU time (ms) of every postgres process on PostgreSQL, 0 on SQLite (whose statements run in the server's process). */
const databaseCpuMs = (engine: EngineResult['engine']): number => (engine === 'PostgreSQL' ? postgresCpuMs() : 0);

/** CPU time (ms) of this process: the load generator's, autocannon running here. */
function generatorCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Milliseconds of CPU over `requests` requests, in microseconds per request. */
const usPerRequest = (ms: number, requests: number): number => (1000 * ms) / Math.max(1, requests);

/**
 * The API's calls/s as a share of the bare handler's req/s, from SHARE_GROUPS groups of windows of
 * SHARE_WINDOW_SECONDS in the order bare, Rail, Rail, bare, as keyedOverhead alternates its windows. One window of
 * each, one after the other, read the bare handler at 6,651 and 8,155 req/s a minute apart in one run
 * (docs/benchmarks-reading.md, twenty-sixth session): a single pair says as much about the machine as about Rail.
 * The bare handler runs beside the server throughout (each idle while the other is loaded).
 */
async function shareOfBare(baseUrl: string, pid: number, engine: EngineResult['engine']): Promise<ShareOfBare> {
  const bare = await startBareHandler();
  // CPU time, which a shared machine's other work moves less than rates: the server's (with the database's on
  // PostgreSQL, idle during the bare handler's windows) and the load generator's.
  const serverCpuMs = (onRail: boolean) => (onRail ? processCpuMs(pid) + databaseCpuMs(engine) : processCpuMs(bare.pid));
  try {
    await runChain(bare.url, { connections: CONNECTIONS, seconds: WARMUP_SECONDS });
    const sums = { calls: 0, bare: 0 };
    const cpu = { rail: { serverMs: 0, generatorMs: 0, requests: 0 }, bare: { serverMs: 0, generatorMs: 0, requests: 0 } };
    const groups: number[] = [];
    for (let group = 0; group < SHARE_GROUPS; group += 1) {
      const rates = { calls: 0, bare: 0 };
      for (const onRail of [false, true, true, false]) {
        const [serverBefore, generatorBefore] = [serverCpuMs(onRail), generatorCpuMs()];
        const window = await runChain(onRail ? baseUrl : bare.url, { connections: CONNECTIONS, seconds: SHARE_WINDOW_SECONDS, ...(onRail ? { apiKey: FIXED_SECRET_KEY } : {}) });
        const side = cpu[onRail ? 'rail' : 'bare'];
        side.generatorMs += generatorCpuMs() - generatorBefore;
        side.serverMs += serverCpuMs(onRail) - serverBefore;
        side.requests += window.calls;
        rates[onRail ? 'calls' : 'bare'] += window.callsPerSecond / 2;
      }
      groups.push(rates.calls / rates.bare);
      sums.calls += rates.calls / SHARE_GROUPS;
      sums.bare += rates.bare / SHARE_GROUPS;
    }
    const perRequest = ({ serverMs, generatorMs, requests }: (typeof cpu)['rail']): CpuPerRequest => ({
      serverUs: usPerRequest(serverMs, requests),
      generatorUs: usPerRequest(generatorMs, requests),
    });
    return { ...sums, groups, cpu: { rail: perRequest(cpu.rail), bare: perRequest(cpu.bare) } };
  } finally {
    await bare.stop();
  }
}

/**
 * The Idempotency-Key's overhead, from KEYED_GROUPS groups of windows of KEYED_WINDOW_SECONDS in the order plain,
 * keyed, keyed, plain on the same server. One plain window and one keyed window after it differ by what the shared
 * machine did in each as much as by the key, and a steady drift (the tables growing under the load) falls on the
 * second alone; the symmetric order cancels the drift. One group ranged over 23-34 % between runs of the same
 * server (docs/benchmarks-reading.md, twentieth session): the figure is pooled over every window, and each group's
 * own overhead is printed beside it, to show how far apart two measures a few seconds apart are.
 */
async function keyedOverhead(baseUrl: string, pid: number, engine: EngineResult['engine']): Promise<KeyedOverhead> {
  const sums = { plain: 0, keyed: 0, errors: 0 };
  const cpu = { plain: { ms: 0, databaseMs: 0, calls: 0 }, keyed: { ms: 0, databaseMs: 0, calls: 0 } };
  const groups: number[] = [];
  for (let group = 0; group < KEYED_GROUPS; group += 1) {
    const rates = { plain: 0, keyed: 0 };
    for (const idempotency of [false, true, true, false]) {
      const [cpuBefore, databaseBefore] = [processCpuMs(pid), databaseCpuMs(engine)];
      const window = await runChain(baseUrl, { connections: CONNECTIONS, seconds: KEYED_WINDOW_SECONDS, apiKey: FIXED_SECRET_KEY, idempotency });
      const kind = idempotency ? 'keyed' : 'plain';
      cpu[kind].ms += processCpuMs(pid) - cpuBefore;
      cpu[kind].databaseMs += databaseCpuMs(engine) - databaseBefore;
      cpu[kind].calls += window.calls;
      rates[kind] += window.paymentsPerSecond;
      sums.errors += window.errors;
    }
    groups.push((rates.plain - rates.keyed) / rates.plain);
    sums.plain += rates.plain / (2 * KEYED_GROUPS);
    sums.keyed += rates.keyed / (2 * KEYED_GROUPS);
  }
  const databasePerCall = ({ databaseMs, calls }: (typeof cpu)['plain']) => (engine === 'PostgreSQL' ? usPerRequest(databaseMs, calls) : undefined);
  return {
    ...sums,
    plainCpuUsPerCall: usPerRequest(cpu.plain.ms, cpu.plain.calls),
    keyedCpuUsPerCall: usPerRequest(cpu.keyed.ms, cpu.keyed.calls),
    plainDatabaseCpuUsPerCall: databasePerCall(cpu.plain),
    keyedDatabaseCpuUsPerCall: databasePerCall(cpu.keyed),
    groups,
  };
}

/** The half-load open loop against a bare handler started for it (warmed by the loop's own untimed first second). */
async function bareOpenLoop(perSecond: number): Promise<PaymentLatency> {
  const bare = await startBareHandler();
  try {
    return await openLoopPayments(bare.url, FIXED_SECRET_KEY, perSecond, SECONDS);
  } finally {
    await bare.stop();
  }
}

/** How often the busy PostgreSQL backends are sampled during the half load (samplePostgresActivity). */
const WAIT_SAMPLE_MS = 10;

/** Pairs of windows of repeatedHalfLoad, and each window's length. */
const REPEATS = 3;
const REPEAT_SECONDS = SECONDS / 2;

/** The half-load p99 (ms) of each pair of repeatedHalfLoad's windows: Rail's, and the bare handler's. */
interface RepeatedHalfLoad {
  p99: number[];
  bareP99: number[];
}

/**
 * The goal a single measure of it settles least on a shared machine, the half-load p99, measured again in REPEATS
 * pairs of open-loop windows at `perSecond` that alternate Rail and the bare handler (bare first, then Rail first,
 * then bare first, so that a drift falls on both; each window after its own untimed first second). Two runs of the
 * same server differed by 2x in this p99 (docs/benchmarks-reading.md, nineteenth session); the median of the windows
 * and their range say whether a figure is beyond that noise. (The SQLite share measured in alternating closed-loop
 * windows the same way ranged over 26 points in one run, 33-59 %: pairs of windows of two servers under full load
 * are not comparable enough for a share.)
 */
async function repeatedHalfLoad(baseUrl: string, perSecond: number): Promise<RepeatedHalfLoad> {
  const bare = await startBareHandler();
  try {
    const result: RepeatedHalfLoad = { p99: [], bareP99: [] };
    for (let pair = 0; pair < REPEATS; pair += 1) {
      const railFirst = pair % 2 === 1;
      const openLoop = (url: string) => openLoopPayments(url, FIXED_SECRET_KEY, perSecond, REPEAT_SECONDS);
      const [first, second] = [await openLoop(railFirst ? baseUrl : bare.url), await openLoop(railFirst ? bare.url : baseUrl)];
      const [rail, bareWindow] = railFirst ? [first, second] : [second, first];
      result.p99.push(rail.p99);
      result.bareP99.push(bareWindow.p99);
    }
    return result;
  } finally {
    await bare.stop();
  }
}

/** `median (min-max)` of `values`, each formatted by `format`. */
function medianAndRange(values: number[], format: (value: number) => string): string {
  return `${format(median(values))} (${format(Math.min(...values))}-${format(Math.max(...values))})`;
}

/**
 * The database's own floor under the half-load p99: pgbench's simple-update (TPC-B-like without its updates of the
 * branch and teller rows, which every transaction of a scale-1 database shares: three statements and a durable
 * commit, and no hot row, as in a payment). With those rows, tpcb-like's p99 at the same rate here was 2.7-4.2x
 * simple-update's, their lock's queue rather than the database's commits (docs/benchmarks-reading.md,
 * twenty-seventh session).
 */
const DATABASE_FLOOR_SCRIPT = 'simple-update';

/** The database's own latency in an open loop at `perSecond` transactions (pgbenchOpenLoopLatency). */
type DatabaseFloor = (perSecond: number) => TransactionLatency;

async function measureEngine(engine: EngineResult['engine'], databaseUrl: string | undefined, databaseFloor?: DatabaseFloor): Promise<EngineResult> {
  const data = tempDir('rail-bench-');
  try {
    const first = await bootServer(SERVER, { dataDir: data.path, databaseUrl, env: PRODUCTION_ENV });
    await first.stop();
    // Start-up as a deployment sees it: an existing store, the code already built. Several restarts, since those of
    // one build on this shared machine ranged over 100 ms (docs/benchmarks-reading.md, thirty-first session).
    const restart = () => bootServer(SERVER, { dataDir: data.path, databaseUrl, env: PRODUCTION_ENV });
    let server = await restart();
    const restartsMs = [server.startupMs];
    while (restartsMs.length < RESTARTS) {
      await server.stop();
      server = await restart();
      restartsMs.push(server.startupMs);
    }
    try {
      await new Promise((resolveWait) => setTimeout(resolveWait, 500));
      const rssStartedMb = rssMb(server.child.pid!);
      await new Promise((resolveWait) => setTimeout(resolveWait, IDLE_SECONDS * 1000 - 500));
      const rssIdleMb = rssMb(server.child.pid!);
      const rssPeak = sampleRssPeak(server.child.pid!);
      await runChain(server.baseUrl, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, apiKey: FIXED_SECRET_KEY });
      const share = await shareOfBare(server.baseUrl, server.child.pid!, engine);
      const [cpuBefore, scheduledBefore, wallBefore] = [mainThreadCpuMs(server.child.pid!), mainThreadScheduling(server.child.pid!), performance.now()];
      const plain = await runChain(server.baseUrl, { connections: CONNECTIONS, seconds: SECONDS, apiKey: FIXED_SECRET_KEY });
      const mainThreadMs = mainThreadCpuMs(server.child.pid!) - cpuBefore;
      const scheduled = mainThreadScheduling(server.child.pid!);
      const mainThread = {
        busyShare: mainThreadMs / (performance.now() - wallBefore),
        cpuUsPerCall: usPerRequest(mainThreadMs, plain.calls),
        preemptionsPerCall: (scheduled.preemptions - scheduledBefore.preemptions) / plain.calls,
        waitingUsPerCall: (scheduled.waitingNs - scheduledBefore.waitingNs) / 1000 / plain.calls,
      };
      const rssLoadMb = rssMb(server.child.pid!);
      const idempotency = await keyedOverhead(server.baseUrl, server.child.pid!, engine);
      const halfLoadRate = plain.paymentsPerSecond / 2;
      const activity = databaseUrl === undefined ? undefined : await samplePostgresActivity(databaseUrl, WAIT_SAMPLE_MS);
      const halfLoad = await openLoopPayments(server.baseUrl, FIXED_SECRET_KEY, halfLoadRate, SECONDS);
      const halfLoadDatabaseActivity = await activity?.stop();
      const rssEndMb = rssMb(server.child.pid!);
      const rssPeakMb = rssPeak.stop();
      const halfLoadBare = await bareOpenLoop(halfLoadRate);
      const halfLoadSync = await fdatasyncLatency(data.path, halfLoadRate * DURABLE_WAITS_PER_PAYMENT[engine], 500);
      const halfLoadDatabase = databaseFloor?.(halfLoadRate * DURABLE_WAITS_PER_PAYMENT[engine]);
      const repeated = await repeatedHalfLoad(server.baseUrl, halfLoadRate);
      return { engine, firstBootMs: first.startupMs, restartsMs, rssStartedMb, rssIdleMb, rssLoadMb, rssEndMb, rssPeakMb, plain, share, mainThread, idempotency, halfLoad, halfLoadRate, halfLoadDatabaseActivity, halfLoadBare, halfLoadSync, halfLoadDatabase, repeated, profile: PROFILE ? await profileUnderLoad(data.path, databaseUrl) : [] };
    } finally {
      await server.stop();
    }
  } finally {
    data.remove();
  }
}

/** A separate, shorter run with V8's CPU profiler on, so the throughput figures above are not perturbed. */
async function profileUnderLoad(dataDir: string, databaseUrl: string | undefined): Promise<{ category: string; percent: number }[]> {
  const profiles = tempDir('rail-profile-');
  const server = await bootServer(['--cpu-prof', `--cpu-prof-dir=${profiles.path}`, ...SERVER], { dataDir, databaseUrl, env: PRODUCTION_ENV });
  try {
    await runChain(server.baseUrl, { connections: CONNECTIONS, seconds: Math.min(SECONDS, 5), apiKey: FIXED_SECRET_KEY });
  } finally {
    await server.stop();
  }
  const summary = summarizeProfile(profiles.path);
  profiles.remove();
  return summary;
}

// --- throughput: the scale-out curve on PostgreSQL (issue 16) ---

const SCALE_OUT_PROCESSES = [1, 2, 4];

interface ScaleOutPoint {
  processes: number;
  paymentsPerSecond: number;
  callP99: number;
  errors: number;
}

/** N processes of the compiled server behind one port (bench/cluster-server.mjs), on one fresh PostgreSQL database. */
async function scaleOutCurve(): Promise<ScaleOutPoint[]> {
  const database = await createTestDatabase('postgres');
  const data = tempDir('rail-bench-cluster-');
  try {
    // One process migrates and bootstraps first, so N processes start on a ready store.
    await (await bootServer(SERVER, { dataDir: data.path, databaseUrl: database.databaseUrl, env: PRODUCTION_ENV })).stop();
    const points: ScaleOutPoint[] = [];
    for (const processes of SCALE_OUT_PROCESSES) {
      const cluster = await startCluster(processes, data.path, database.databaseUrl!);
      try {
        await runChain(cluster.baseUrl, { connections: CONNECTIONS, seconds: WARMUP_SECONDS, apiKey: FIXED_SECRET_KEY });
        const result = await runChain(cluster.baseUrl, { connections: CONNECTIONS, seconds: SECONDS, apiKey: FIXED_SECRET_KEY });
        points.push({ processes, paymentsPerSecond: result.paymentsPerSecond, callP99: result.callP99, errors: result.errors });
        console.log(`PostgreSQL, ${processes} process(es): ${fixed(result.paymentsPerSecond)} payments/s`);
      } finally {
        await cluster.stop();
      }
    }
    return points;
  } finally {
    data.remove();
    await database.drop();
  }
}

async function startCluster(processes: number, dataDir: string, databaseUrl: string): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const { spawn } = await import('node:child_process');
  const [port, jsPort] = [await freePort(), await freePort()];
  // The workers inherit the primary's node flags (cluster.fork) and environment.
  const child = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, 'bench/cluster-server.mjs'], {
    cwd: ROOT,
    env: { ...railEnv({ port, jsPort, dataDir, databaseUrl, logLevel: 'error' }), ...PRODUCTION_ENV, RAIL_RATE_LIMITS: 'off', RAIL_BENCH_PROCESSES: String(processes) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  await new Promise<void>((resolveReady, rejectReady) => {
    let output = '';
    const timer = setTimeout(() => rejectReady(new Error(`${processes} processes did not start within 60 s`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('cluster ready')) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    child.once('exit', () => rejectReady(new Error(`the cluster exited during start:\n${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function renderScaleOut(points: ScaleOutPoint[]): string {
  if (points.length === 0) return '(not measured: PostgreSQL not reachable, or BENCH_SCALE_OUT=0)';
  const one = points[0]!.paymentsPerSecond;
  return [
    '| processes | payments/s | vs 1 process | per-call p99 (ms) | errors |',
    '|---|---|---|---|---|',
    ...points.map((p) => `| ${p.processes} | ${fixed(p.paymentsPerSecond)} | ${fixed(p.paymentsPerSecond / one, 2)}x | ${fixed(p.callP99, 1)} | ${p.errors} |`),
  ].join('\n');
}

// --- end of the throughput section ---

function render(bare: ChainResult & { startupMs: number }, results: EngineResult[], pgbench: number | undefined): string {
  const lines = [
    '| measure | SQLite | PostgreSQL | goal |',
    '|---|---|---|---|',
  ];
  const row = (name: string, cell: (r: EngineResult) => string, goal: string) => {
    const by = (engine: string) => results.find((r) => r.engine === engine);
    const sqlite = by('SQLite');
    const postgres = by('PostgreSQL');
    lines.push(`| ${name} | ${sqlite ? cell(sqlite) : '-'} | ${postgres ? cell(postgres) : 'not reachable'} | ${goal} |`);
  };
  row('payments/s (create+confirm), closed loop', (r) => fixed(r.plain.paymentsPerSecond), '');
  row('API calls/s', (r) => fixed(r.plain.callsPerSecond), '');
  row(
    `API calls/s as a share of the bare Hono handler's req/s, in ${4 * SHARE_GROUPS} alternating ${SHARE_WINDOW_SECONDS} s windows (pooled; each group of four's own)`,
    (r) => `${percent(r.share.calls, r.share.bare)} (${fixed(r.share.calls)} against ${fixed(r.share.bare)} req/s; ${r.share.groups.map((group) => percent(group, 1)).join(', ')})`,
    '>= 40 % (SQLite)',
  );
  row(
    "the same windows by CPU time (us): the server (on PostgreSQL with the database) + the load generator per call, against the bare handler + the generator per request; a call as a multiple of a bare request, in all (the servers alone)",
    (r) => {
      const { rail, bare } = r.share.cpu;
      const total = (side: CpuPerRequest) => side.serverUs + side.generatorUs;
      return `${fixed(rail.serverUs)} + ${fixed(rail.generatorUs)} against ${fixed(bare.serverUs)} + ${fixed(bare.generatorUs)}; ${fixed(total(rail) / total(bare), 2)}x (${fixed(rail.serverUs / bare.serverUs, 2)}x)`;
    },
    '',
  );
  row('payments/s as a share of pgbench TPS (same clients)', (r) => (r.engine === 'PostgreSQL' && pgbench ? percent(r.plain.paymentsPerSecond, pgbench) : '-'), '>= 25 % (PostgreSQL)');
  row(
    'server main thread in the closed loop: busy (share of wall time); CPU per call; preempted per call; waiting for a CPU per call',
    (r) => `${percent(r.mainThread.busyShare, 1)}; ${fixed(r.mainThread.cpuUsPerCall)} us; ${fixed(r.mainThread.preemptionsPerCall, 2)}; ${fixed(r.mainThread.waitingUsPerCall)} us`,
    '',
  );
  row('per-call latency p50 / p99 at peak (ms)', (r) => `${fixed(r.plain.callP50, 1)} / ${fixed(r.plain.callP99, 1)}`, '');
  row('create+confirm p50 / p99 at 50 % of peak (ms)', (r) => `${fixed(r.halfLoad.p50, 1)} / ${fixed(r.halfLoad.p99, 1)} (${fixed(r.halfLoadRate)} payments/s, ${r.halfLoad.errors} errors)`, 'p99 <= 25 ms');
  row(
    'the same open loop against the bare handler: p50 / p99 (ms), and Rail p99 / bare p99',
    (r) => `${fixed(r.halfLoadBare.p50, 1)} / ${fixed(r.halfLoadBare.p99, 1)} (${fixed(r.halfLoad.p99 / r.halfLoadBare.p99, 1)}x)`,
    '',
  );
  row(
    `create+confirm p99 at 50 % of peak in ${REPEATS} more ${REPEAT_SECONDS} s windows alternating with the bare handler: median (range); the bare handler's (ms)`,
    (r) => `${medianAndRange(r.repeated.p99, (ms) => fixed(ms, 1))}; ${medianAndRange(r.repeated.bareP99, (ms) => fixed(ms, 1))}`,
    'p99 <= 25 ms',
  );
  row(
    `the disk's fdatasync p50 / p99 (ms), right after (a payment waits for ${DURABLE_WAITS_PER_PAYMENT.SQLite} in a row on SQLite, ${DURABLE_WAITS_PER_PAYMENT.PostgreSQL} on PostgreSQL)`,
    (r) => `${fixed(r.halfLoadSync.p50, 2)} / ${fixed(r.halfLoadSync.p99, 1)}`,
    '',
  );
  row(
    `PostgreSQL's own p50 / p99 per transaction (ms) at the rate the half load waits for durable commits (its payments/s x ${DURABLE_WAITS_PER_PAYMENT.PostgreSQL}), right after: pgbench ${DATABASE_FLOOR_SCRIPT} in an open loop`,
    (r) => (r.halfLoadDatabase ? `${fixed(r.halfLoadDatabase.p50, 1)} / ${fixed(r.halfLoadDatabase.p99, 1)} (${fixed(r.halfLoadRate * DURABLE_WAITS_PER_PAYMENT.PostgreSQL)} TPS)` : '-'),
    '',
  );
  row(
    `PostgreSQL's busy backends during the half load, sampled every ${WAIT_SAMPLE_MS} ms: waiting for the WAL's flush (${WAL_FLUSH_WAITS.join(', ')}) / working / waiting on anything else; busy backends on average`,
    (r) => (r.halfLoadDatabaseActivity ? renderWaits(r.halfLoadDatabaseActivity) : '-'),
    '',
  );
  row(
    'PostgreSQL\'s WAL in the same half load, per payment: KB written; full-page images among its records; flushes to disk',
    (r) => (r.halfLoadDatabaseActivity ? renderWal(r.halfLoadDatabaseActivity, r.halfLoad.payments + OPEN_LOOP_WARMUP_PAYMENTS(r.halfLoadRate)) : '-'),
    '',
  );
  row(
    `+ Idempotency-Key: payments/s, against plain in ${4 * KEYED_GROUPS} alternating windows (overhead; each group of four's own)`,
    (r) =>
      `${fixed(r.idempotency.keyed)} against ${fixed(r.idempotency.plain)} (${percent(r.idempotency.plain - r.idempotency.keyed, r.idempotency.plain)}; ${r.idempotency.groups.map((share) => percent(share, 1)).join(', ')})`,
    'overhead <= 20 %',
  );
  row(
    "+ Idempotency-Key: the server process's CPU per call, keyed against plain, same windows; on PostgreSQL, the database's beside it",
    (r) => {
      const { keyedCpuUsPerCall: keyed, plainCpuUsPerCall: plain, keyedDatabaseCpuUsPerCall: keyedDatabase, plainDatabaseCpuUsPerCall: plainDatabase } = r.idempotency;
      const server = `${fixed(keyed)} against ${fixed(plain)} us (${fixed(keyed / plain, 2)}x)`;
      return keyedDatabase === undefined || plainDatabase === undefined
        ? server
        : `${server}; the database: ${fixed(keyedDatabase)} against ${fixed(plainDatabase)} us (${fixed(keyedDatabase / plainDatabase, 2)}x)`;
    },
    '',
  );
  row('errors (non-2xx, closed loop)', (r) => String(r.plain.errors + r.idempotency.errors), '0');
  row(`start-up to first 200: first boot / restart, median of ${RESTARTS} (range) (ms)`, (r) => `${fixed(r.firstBootMs)} / ${medianAndRange(r.restartsMs, fixed)}`, 'restart <= 300 ms');
  row(`RSS idle (${IDLE_SECONDS} s after start, no request) / after load (MB)`, (r) => `${fixed(r.rssIdleMb)} / ${fixed(r.rssLoadMb)}`, '<= 80 / <= 150');
  row(`RSS at the end of the engine's load (${LOADED_SECONDS} s: the share's windows, closed loop, Idempotency-Key windows, half load) (MB)`, (r) => fixed(r.rssEndMb), '<= 150');
  row(`RSS peak under load (sampled every 250 ms over the same ${LOADED_SECONDS} s) (MB)`, (r) => fixed(r.rssPeakMb), '<= 150');
  row('RSS 0.5 s after the first 200 (MB)', (r) => fixed(r.rssStartedMb), '');
  lines.push('', `Baselines in the same run: bare Hono handler ${fixed(bare.callsPerSecond)} req/s with the same generator (p99 ${fixed(bare.callP99, 1)} ms; it starts in ${fixed(bare.startupMs)} ms); pgbench tpcb-like ${pgbench ? `${fixed(pgbench)} TPS at ${CONNECTIONS} clients` : 'not run (PostgreSQL not reachable)'}.`);
  return lines.join('\n');
}

/** `60 % (IO:WALSync 45 %, LWLock:WALWrite 15 %) / 30 % / 10 %; 1.2`: shares of the busy backends seen. */
function renderWaits(waits: PostgresActivity): string {
  const share = (count: number) => percent(count, waits.busy);
  const flush = waits.byWait.filter(([wait]) => WAL_FLUSH_WAITS.includes(wait));
  const flushCount = flush.reduce((sum, [, count]) => sum + count, 0);
  const working = waits.byWait.find(([wait]) => wait === 'CPU')?.[1] ?? 0;
  const others = waits.byWait.filter(([wait]) => wait !== 'CPU' && !WAL_FLUSH_WAITS.includes(wait));
  const otherText = [...others.slice(0, 2).map(([wait, count]) => `${wait} ${share(count)}`), ...(others.length > 2 ? ['...'] : [])].join(', ');
  return `${share(flushCount)} (${flush.map(([wait, count]) => `${wait} ${share(count)}`).join(', ')}) / ${share(working)} / ${share(waits.busy - flushCount - working)}${otherText === '' ? '' : ` (${otherText})`}; ${fixed(waits.busy / waits.samples, 2)}`;
}

/** `9.1 KB; 2.3; 1.4`: the WAL of the half load's `payments` (its untimed first second included), per payment. */
function renderWal({ wal }: PostgresActivity, payments: number): string {
  return `${fixed(wal.bytes / 1024 / payments, 1)} KB; ${fixed(wal.fullPageImages / payments, 2)}; ${fixed(wal.syncs / payments, 2)}`;
}

function renderProfiles(results: EngineResult[]): string {
  return results
    .filter((r) => r.profile.length > 0)
    .map((r) => [`${r.engine} (share of the server's CPU samples under load):`, '', '| where | share |', '|---|---|', ...r.profile.map((p) => `| ${p.category} | ${fixed(p.percent, 1)} % |`)].join('\n'))
    .join('\n\n');
}

/** Start-up and memory (bench/startup.ts): needs the packages built (`npm run build`), as the CLI and startRail() run. */
async function startupSection(): Promise<string> {
  execFileSync('npm', ['run', 'build', '-w', '@rail/server'], { cwd: ROOT, stdio: 'inherit' });
  const table = startupTable(await startupBench());
  console.log(`\n${table}\n`);
  const profile = await startProfile();
  console.log(`\n${profile}\n`);
  return `Spawn (or the call) to the first 200, ratios to the bare Hono handler started in the same rounds (bench/startup.ts,
alone: \`node --import tsx bench/startup.ts\`):

${table}

Where a restart's CPU goes (bench/start-profile.ts, alone: \`node --import tsx bench/start-profile.ts\`). ${profile}`;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const speedBefore = machineSpeed();
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  console.log(`bench: ${SECONDS} s per measure, ${CONNECTIONS} connections, loopback, the compiled server`);
  const bare = await bareCeiling();
  console.log(`bare Hono handler: ${fixed(bare.callsPerSecond)} req/s`);
  const results: EngineResult[] = [await measureEngine('SQLite', undefined)];
  let pgbench: number | undefined;
  let scaleOut: ScaleOutPoint[] = [];
  if (await postgresReachable()) {
    // pgbench's tables stay until Rail's loops are done: the database's own floor is measured beside Rail's half load.
    const bench = await createTestDatabase('postgres');
    try {
      pgbench = pgbenchTps(bench.databaseUrl!, CONNECTIONS, SECONDS);
      const database = await createTestDatabase('postgres');
      try {
        const floor = (perSecond: number) => pgbenchOpenLoopLatency(bench.databaseUrl!, DATABASE_FLOOR_SCRIPT, CONNECTIONS, perSecond, SECONDS);
        results.push(await measureEngine('PostgreSQL', database.databaseUrl, floor));
      } finally {
        await database.drop();
      }
    } finally {
      await bench.drop();
    }
    if (SCALE_OUT) scaleOut = await scaleOutCurve();
  }
  const table = render(bare, results, pgbench);
  const profiles = renderProfiles(results);
  const scaleOutTable = renderScaleOut(scaleOut);
  console.log(`\n${table}\n\n${scaleOutTable}\n\n${profiles}\n`);
  const mount = mountTable(await mountBench());
  console.log(`\n${mount}\n`);
  const startup = await startupSection();

  const loadAfter = loadavg()[0] ?? 0;
  const speedAfter = machineSpeed();
  const speed = (at: { nodeStartMs: number; workMs: number }) => `${fixed(at.nodeStartMs)} / ${fixed(at.workMs)} ms`;
  const machine = `${availableParallelism()} CPUs ${cpus()[0]?.model ?? ''}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}; 1-minute load average ${loadBefore.toFixed(1)} before the run and ${loadAfter.toFixed(1)} after it (near or above the CPU count: other work shared the machine, and absolute numbers are pessimistic; the ratios compare figures taken in the same window). Machine speed (\`node -e 0\` spawn to exit / a fixed JSON and SHA-256 workload in a fresh process, bench/process-metrics.ts machineSpeed; lower is faster): ${speed(speedBefore)} before the run, ${speed(speedAfter)} after it`;
  writeFileSync(
    join(ROOT, 'docs/benchmarks.md'),
    `# Benchmarks

Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${machine}.

## Method

- The server as production runs it: \`dist/server/main.js\` (compiled by \`npm run build:server\`) with node and the
  memory settings of docs/operations.md (\`--max-semi-space-size=8\`, \`MALLOC_ARENA_MAX=2\`,
  \`MALLOC_MMAP_THRESHOLD_=131072\`, \`MALLOC_TRIM_THRESHOLD_=4194304\`), log level error, rate limits off, on
  loopback; a fresh data directory (SQLite, WAL, group commit: a write is acknowledged only after an fdatasync of
  the WAL that covers its COMMIT, the sync \`synchronous=FULL\` would do, run off the event loop) or a fresh
  PostgreSQL database (fsync and synchronous_commit on, pool of 16 per process).
- Load: autocannon, ${CONNECTIONS} keep-alive connections, each looping create (\`POST /payments\`, UPI
  \`success@upi\`) then confirm (\`POST /payments/{id}/confirm\`; the test simulator answers at once), ${SECONDS} s after
  a ${WARMUP_SECONDS} s warm-up. A payment is two API calls. The load generator shares the 2 cores with the server (and
  PostgreSQL). During that loop, the CPU time of the server's main thread (/proc; the thread that runs the
  JavaScript and SQLite's statements): near 100 % of the wall time, the event loop is what limits the server. In
  the same loop, the times the scheduler preempted that thread and the time it waited, runnable, for a CPU
  (/proc: nonvoluntary_ctxt_switches, schedstat), per call.
- Idempotency-Key overhead: then ${KEYED_GROUPS} groups of four windows of ${KEYED_WINDOW_SECONDS} s on the same server, without the
  header, with it on every call (a fresh key each), with it, without: the keyed payments/s against the plain ones of
  the same windows (and each group's own overhead beside it, for the noise between two measures),
  and the server process's CPU time per call (/proc: user + system, all threads) in the same windows, which the
  load of a shared machine moves less than throughput; on PostgreSQL, every postgres process's CPU time per call
  beside it (most of what the key costs there is the database's).
- Baselines in the same run: the same generator against a bare Hono handler (bench/bare-server.mjs: parse the JSON,
  answer JSON) is the ceiling of the generator and the HTTP stack together, measured at the start and again beside
  each engine's loops: the share is pooled over ${4 * SHARE_GROUPS} windows of ${SHARE_WINDOW_SECONDS} s in groups of bare, Rail, Rail,
  bare (the machine's load moves within a run, and one pair of windows read the bare handler 23 % apart a minute
  apart). In the same windows, the CPU time (/proc; the generator's from this process, where autocannon runs) that
  each side spent per request: the server's (on PostgreSQL with every postgres process's) and the generator's. Their
  ratio says what a Rail call costs against a bare request, which the machine's other work moved less than it moved
  the rates (docs/benchmarks-reading.md, twenty-eighth session; it is not the share itself: the server's one
  JavaScript thread, not the machine's CPU, bounds its rate). pgbench's TPC-B-like transaction (5 statements, durable) at the same client count is the database's own
  ceiling.
- Latency at half load: an open-loop client (node:http over up to 64 keep-alive connections, one timer for the
  schedule; its own process's garbage collected first) starts whole payments at half the measured peak rate and times
  each from its scheduled start (queueing included), after a first second on the same schedule that is not timed: the
  figure is the steady state (in that first second V8 re-optimizes the server's code for this client's requests
  after autocannon's, and it was the slowest second of most loops; docs/benchmarks-reading.md, tenth session). Right
  after, the same client at the same rate against the bare handler: its p99 is the client's own scheduling delay on
  the shared cores, a floor under Rail's. Then the disk's own fdatasync latency (4 KB write + fdatasync, one at a
  time, 500 of them at the rate a payment's durable writes come at): a payment waits for several of these in a row,
  so their tail is another floor. On PostgreSQL, the database's busy backends are sampled every ${WAIT_SAMPLE_MS} ms during the
  half load (pg_stat_activity, one query from a connection of the bench's own: working, or waiting and on what), the
  WAL it wrote and flushed meanwhile is read from pg_stat_wal (after the 1.5 s its backends take to publish it), and
  after the fdatasync floor, pgbench's ${DATABASE_FLOOR_SCRIPT} in an open loop (its --rate, each transaction timed
  from when it was due) at the rate the half load's payments wait for durable commits is the database's own floor.
- Repeated: then the half-load p99 once more, in ${REPEATS} pairs of ${REPEAT_SECONDS} s windows that alternate Rail
  and the bare handler (bare first, then Rail first, then bare first): their median and range, beside the single
  figure above, say whether the goal is met beyond the noise of a shared machine (two runs of one server differed by
  2x in that p99).
- Start-up: spawn to the first 200 of \`/health\`, on an empty store (first boot: migrations, bootstrap, key
  hashing) and on an existing one (restart: ${RESTARTS} in a row, their median and range; the engine is then measured
  on the last). Memory: VmRSS of the server process, idle after ${IDLE_SECONDS} s
  without a request (and 0.5 s after its first 200), right after the closed loop, at the end of the engine's load
  (where it stays under sustained load), and its peak, sampled every 250 ms from the warm-up to the end of the half
  load (V8 collects its old generation only at the limit its last full collection set, so the RSS of a loaded server
  rises and falls by tens of MB between readings). The section "Start-up and memory" below (bench/startup.ts) times, in
  interleaved rounds, the compiled server, the \`rail start\` CLI and \`startRail()\` of @rail/server in and out of
  process, each as a ratio to the bare Hono handler's spawn to first 200 in the same rounds, and the resident memory
  of each idle and of the server after load; then V8 CPU profiles of restarts and of the bare handler's starts
  (bench/start-profile.ts), the main thread's CPU by what ran, the bundle's packages and Rail's folders named
  through its source map.
- The CPU profiles under load name the bundle's code the same way: an npm package bundled in (hono, kysely, zod)
  by its name, Rail's own code by its folder (\`rail server/src/storage\`; its statements' SQLite calls are in its
  self time).

## Results

${table}

## Scale-out on PostgreSQL

The same closed loop (${CONNECTIONS} connections) against N processes of the compiled server behind one port
(bench/cluster-server.mjs, node:cluster), on one PostgreSQL, on this ${availableParallelism()}-CPU machine:

${scaleOutTable}

## Where the time goes

A V8 CPU profile of the server's main thread under the same load (a separate, shorter run), self time by where the code lives.
V8 samples the thread at intervals of wall time, on a CPU or waiting for one, and finds a preempted thread in the native
call it was preempted in: on PostgreSQL "(writev)" holds the waits after the sends that wake a backend (the
preemptions in the results above), not only the system call (docs/benchmarks-reading.md, thirty-fifth session):

${profiles || '(profile skipped: BENCH_PROFILE=0)'}

## Start-up and memory

${startup}

## Mount to ready, and the bytes the browser gets

${mount}

See docs/benchmarks-reading.md for how to read these figures and what would move them.
`,
  );
  console.log('wrote docs/benchmarks.md');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
