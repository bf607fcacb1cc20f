/**
 * Start-up and memory of the server, for `npm run bench` (its "Start-up and memory" section) or alone:
 *   node --import tsx bench/startup.ts
 * Every start is timed from spawn (or from the call) to the first 200, ROUNDS rounds with the measures interleaved
 * so that each sees the same machine load; medians. The ratio base is the bare Hono handler
 * (bench/bare-server.mjs: the HTTP stack Rail runs on, with none of Rail's work) started in the same rounds.
 * - server: dist/server/main.js with production's command line (docs/operations.md, as `npm start` runs it), SQLite;
 *   first boot (empty store: migrations, bootstrap, key and password hashing) and restart (the store exists), and the
 *   restart with --enable-source-maps (it was `npm start`'s flag: Node reads and keeps the 4 MB source map at load; on
 *   a build whose main.js runs the bundle through scripts/bundle-launcher.mjs it changes nothing, the launcher maps
 *   stacks itself);
 * - the same server on PostgreSQL (DATABASE_URL: a fresh database per checkout, created as bench/run.ts does, first
 *   booted in round 0), restart; skipped when PostgreSQL is not reachable;
 * - `rail start`: the CLI of the built @rail/server (packages/server/dist/cli.js), restart;
 * - startRail() in a test process (bench/start-rail-probe.mjs): in process and as a child process, each on a fresh
 *   temporary store (a first boot, as every test run's); the call alone, and spawn-to-ready of the whole process;
 * - page faults: each spawned start's minor page faults up to its first 200 (the memory it touched, page by page),
 *   and what one fault costs this machine, measured in the same run: on a virtual machine a fault can cost 10 us or
 *   more, and a start that builds its heap takes thousands, so the faults explain part of a start's CPU time;
 * - RSS (VmRSS): 500 ms after ready, and after a short closed-loop load (create+confirm). The goal's idle figure is
 *   bench/run.ts's, read after 15 s without a request (V8's memory reducer gives the start's garbage back by then).
 * Build first (`npm run build`). BENCH_STARTUP_ROUNDS (default 7). BENCH_STARTUP_BASELINE=<another built checkout>
 * measures that checkout's server and CLI too, in the same rounds (before/after).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, postgresReachable, type TestDatabase } from '../server/src/test-support/harness';
import { FIXED_SECRET_KEY, freePort, railEnv, ROOT } from '../server/src/test-support/server-process';
import { runChain } from './load';
import { microsecondsPerFault, minorFaults, processCpuMs, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, rssMb } from './process-metrics';

const ROUNDS = Number(process.env['BENCH_STARTUP_ROUNDS'] ?? 7);
const BASELINE = process.env['BENCH_STARTUP_BASELINE'];
const LOAD_SECONDS = 4;

interface Started {
  child: ChildProcess;
  port: number;
  ms: number;
  /** CPU time (user + system) the process used up to its first 200: what a loaded machine does not inflate. */
  cpuMs: number;
  /** Minor page faults up to its first 200: the memory it touched, page by page. */
  faults: number;
  stop(): Promise<void>;
}

/** Spawns `node args` in `cwd` and polls until `probe(port)` is true (every 2 ms): milliseconds from spawn. */
async function spawnUntilReady(args: string[], cwd: string, env: NodeJS.ProcessEnv, port: number, probe: (port: number) => Promise<boolean>): Promise<Started> {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited during start: node ${args.join(' ')}`);
    if (performance.now() - began > 60_000) throw new Error(`no 200 within 60 s: node ${args.join(' ')}`);
    if (await probe(port).catch(() => false)) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 2));
  }
  const ms = performance.now() - began;
  return {
    child,
    port,
    ms,
    cpuMs: processCpuMs(child.pid!),
    faults: minorFaults(child.pid!),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const health = async (port: number) => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;

async function startBare(): Promise<Started> {
  const port = await freePort();
  const answers = async (p: number) =>
    (await fetch(`http://127.0.0.1:${p}/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1}' })).status === 200;
  return spawnUntilReady(['bench/bare-server.mjs', String(port)], ROOT, process.env, port, answers);
}

/**
 * The compiled server (`main`) or the `rail start` CLI (`cli`) of the checkout at `root`, on SQLite in `dataDir`, or
 * on PostgreSQL at `databaseUrl`; with production's command line (docs/operations.md), as `npm start` runs it.
 */
async function startRail(root: string, entry: 'main' | 'main with source maps' | 'cli', dataDir: string, databaseUrl?: string): Promise<Started> {
  const [port, jsPort] = [await freePort(), await freePort()];
  const env = { ...railEnv({ port, jsPort, dataDir, databaseUrl, logLevel: 'error' }), ...PRODUCTION_ENV, RAIL_RATE_LIMITS: 'off' };
  const args = [
    ...PRODUCTION_NODE_FLAGS,
    ...(entry === 'cli' ? ['packages/server/dist/cli.js', 'start'] : [...(entry === 'main' ? [] : ['--enable-source-maps']), 'dist/server/main.js']),
  ];
  return spawnUntilReady(args, root, env, port, health);
}

interface ProbeResult {
  importMs: number;
  startMs: number;
  rssMb: number;
  /** CPU of the test process during the call (in process), of the whole test process, of the server's own process (child). */
  startCpuMs: number;
  processCpuMs: number;
  childCpuMs?: number;
  /** Spawn of the probe process to its ready line (import + startRail() + first 200). */
  processMs: number;
}

function probe(mode: 'in-process' | 'child-process'): Promise<ProbeResult> {
  const began = performance.now();
  return new Promise((resolveProbe, reject) => {
    // Like a test runner: the embedding process's own DATABASE_URL must not matter (startRail ignores it).
    const child = spawn(process.execPath, ['bench/start-rail-probe.mjs', mode, ROOT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (out === '' && chunk.includes('\n')) {
        const line = (out + chunk).split('\n')[0] as string;
        resolveProbe({ ...(JSON.parse(line) as Omit<ProbeResult, 'processMs'>), processMs: performance.now() - began });
      }
      out += chunk;
    });
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`start-rail-probe ${mode} exited ${code}`))));
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export interface StartupResult {
  rounds: number;
  /** Medians in ms, by measure. */
  ms: Record<string, number>;
  /** Medians of the CPU ms the starting process used, by measure. */
  cpuMs: Record<string, number>;
  /** Medians of the minor page faults the starting process took, by measure (spawned processes only). */
  faults: Record<string, number>;
  /** What a minor page fault cost this machine in the same run (bench/process-metrics.ts microsecondsPerFault). */
  usPerFault: number;
  /** MB, by process. */
  rss: Record<string, { idle: number; load?: number }>;
  baseline?: string;
}

async function idleRss(started: Started): Promise<number> {
  await new Promise((resolveWait) => setTimeout(resolveWait, 500));
  return rssMb(started.child.pid!);
}

export async function startupBench(): Promise<StartupResult> {
  const samples = new Map<string, number[]>();
  const note = (name: string, ms: number, cpuMs?: number, faultCount?: number) => {
    samples.set(name, [...(samples.get(name) ?? []), ms]);
    if (cpuMs !== undefined) cpu.set(name, [...(cpu.get(name) ?? []), cpuMs]);
    if (faultCount !== undefined) faults.set(name, [...(faults.get(name) ?? []), faultCount]);
  };
  const cpu = new Map<string, number[]>();
  const faults = new Map<string, number[]>();
  const checkouts: [string, string][] = [['', ROOT], ...(BASELINE ? [[' (baseline)', resolve(BASELINE)] as [string, string]] : [])];
  const rss: StartupResult['rss'] = {};
  const dirs: string[] = [];
  const databases: TestDatabase[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rail-bench-startup-'));
    dirs.push(dir);
    return dir;
  };
  try {
    const stores = new Map(checkouts.map(([label]) => [label, { main: tempDir(), cli: tempDir(), postgres: tempDir() }]));
    const postgres = new Map<string, string>();
    if (await postgresReachable()) {
      for (const [label] of checkouts) {
        const database = await createTestDatabase('postgres');
        databases.push(database);
        postgres.set(label, database.databaseUrl!);
      }
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const bare = await startBare();
      note('bare', bare.ms, bare.cpuMs, bare.faults);
      if (round === 0) rss['bare Hono handler'] = { idle: await idleRss(bare) };
      await bare.stop();
      for (const [label, root] of checkouts) {
        const store = stores.get(label)!;
        const first = await startRail(root, 'main', tempDir());
        note(`first${label}`, first.ms, first.cpuMs, first.faults);
        await first.stop();
        // The store of round 0 is the one every later round restarts on (round 0's own start was a first boot).
        const restart = await startRail(root, 'main', store.main);
        if (round > 0) note(`restart${label}`, restart.ms, restart.cpuMs, restart.faults);
        if (round === ROUNDS - 1) {
          const idle = await idleRss(restart);
          await runChain(`http://127.0.0.1:${restart.port}`, { connections: 16, seconds: LOAD_SECONDS, apiKey: FIXED_SECRET_KEY });
          rss[`server${label}`] = { idle, load: rssMb(restart.child.pid!) };
        }
        await restart.stop();
        const databaseUrl = postgres.get(label);
        if (databaseUrl !== undefined) {
          // Round 0's start is the database's first boot; the data directory only keeps the vault key and the test keys.
          const onPostgres = await startRail(root, 'main', store.postgres, databaseUrl);
          if (round > 0) note(`restart postgres${label}`, onPostgres.ms, onPostgres.cpuMs, onPostgres.faults);
          await onPostgres.stop();
        }
        // As the throughput rows run it (and `npm start` did): Node reads an ES module bundle's source map at load.
        const mapped = await startRail(root, 'main with source maps', store.main);
        note(`mapped${label}`, mapped.ms, mapped.cpuMs, mapped.faults);
        if (round === ROUNDS - 1) rss[`server${label}, --enable-source-maps`] = { idle: await idleRss(mapped) };
        await mapped.stop();
        const cli = await startRail(root, 'cli', store.cli);
        if (round > 0) note(`cli${label}`, cli.ms, cli.cpuMs, cli.faults);
        if (round === ROUNDS - 1) rss[`rail start${label}`] = { idle: await idleRss(cli) };
        await cli.stop();
      }
      const inProcess = await probe('in-process');
      note('startRail in-process call', inProcess.startMs, inProcess.startCpuMs);
      note('startRail in-process process', inProcess.processMs, inProcess.processCpuMs);
      note('import @rail/server', inProcess.importMs);
      const child = await probe('child-process');
      note('startRail child-process call', child.startMs, child.childCpuMs);
      if (round === ROUNDS - 1) {
        rss['test process with startRail() in process'] = { idle: inProcess.rssMb };
        rss['startRail() child process'] = { idle: child.rssMb };
      }
    }
  } finally {
    for (const database of databases) await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  const ms = Object.fromEntries([...samples].map(([name, values]) => [name, median(values)]));
  const cpuMs = Object.fromEntries([...cpu].map(([name, values]) => [name, median(values)]));
  const faultMedians = Object.fromEntries([...faults].map(([name, values]) => [name, median(values)]));
  return { rounds: ROUNDS, ms, cpuMs, faults: faultMedians, usPerFault: microsecondsPerFault(), rss, ...(BASELINE ? { baseline: BASELINE } : {}) };
}

export function startupTable(result: StartupResult): string {
  const bare = result.ms['bare'] ?? Number.NaN;
  const bareCpu = result.cpuMs['bare'] ?? Number.NaN;
  const fixed = (value: number | undefined, digits = 0) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '-');
  const bareFaults = result.faults['bare'] ?? Number.NaN;
  const lines = [
    '| start-up to the first 200 (median) | ms | x bare Hono | CPU ms | CPU x bare Hono | page faults | faults x bare Hono | faults x cost of one (ms) | goal |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  const row = (name: string, key: string, goal = '') => {
    if (result.ms[key] === undefined) return;
    const cpuMs = result.cpuMs[key];
    const faults = result.faults[key];
    const faultColumns =
      faults === undefined ? '| | | |' : `| ${fixed(faults)} | ${fixed(faults / bareFaults, 1)} | ${fixed((faults * result.usPerFault) / 1000)} |`;
    lines.push(
      `| ${name} | ${fixed(result.ms[key])} | ${fixed((result.ms[key] as number) / bare, 1)} | ${fixed(cpuMs)} | ${cpuMs === undefined ? '' : fixed(cpuMs / bareCpu, 1)} ${faultColumns} ${goal} |`,
    );
  };
  row('bare Hono handler (bench/bare-server.mjs), spawn to first 200', 'bare');
  for (const label of ['', ...(result.baseline ? [' (baseline)'] : [])]) {
    row(`server${label} (dist/server/main.js), restart on an existing store`, `restart${label}`, label ? '' : '<= 300 ms');
    row(`server${label}, restart on PostgreSQL (DATABASE_URL)`, `restart postgres${label}`, label ? '' : '<= 300 ms');
    row(`server${label}, restart with \`--enable-source-maps\``, `mapped${label}`);
    row(`server${label}, first boot (empty store)`, `first${label}`);
    row(`\`rail start\`${label} (packages/server/dist/cli.js), restart`, `cli${label}`);
  }
  row('`import` of @rail/server in a test process', 'import @rail/server');
  row('`startRail()` in process: the call (fresh temporary store)', 'startRail in-process call', 'well under 1 s');
  row('`startRail()` in process: spawn of the test process to ready (import + call)', 'startRail in-process process');
  row("`startRail({ mode: 'child-process' })`: the call", 'startRail child-process call', 'well under 1 s');
  lines.push('', '| resident memory (VmRSS) | 0.5 s after ready, MB | after load, MB | goal |', '|---|---:|---:|---|');
  for (const [name, value] of Object.entries(result.rss)) {
    const goal = name === 'server' ? 'idle (15 s, docs/benchmarks.md) <= 80 / <= 150' : '';
    lines.push(`| ${name} | ${fixed(value.idle)} | ${value.load === undefined ? '' : fixed(value.load)} | ${goal} |`);
  }
  lines.push(
    '',
    `${result.rounds} rounds, medians; restarts from the second round. CPU ms: user + system time of the starting process up to its first 200 (10 ms ticks; the in-process call: the test process's CPU during the call; the child-process call: the server process's), which a machine shared with other work inflates far less than wall time. Page faults: the minor page faults of the starting process up to its first 200, each a page of memory touched for the first time; one cost ${fixed(result.usPerFault, 1)} us on this machine in this run (32 MB touched a page at a time, bench/process-metrics.ts), so the last column is about how much of the start went to them. After load: ${LOAD_SECONDS} s of create+confirm at 16 connections. ` +
      (result.baseline ? `Baseline: the checkout at ${result.baseline}, measured in the same rounds.` : ''),
  );
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(ROOT, 'bench/startup.ts')) {
  startupBench().then(
    (result) => console.log(startupTable(result)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
