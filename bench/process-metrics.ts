/**
 * What `npm run bench` measures about processes rather than requests: start-up to the first 200, resident memory,
 * pgbench's TPS on the same PostgreSQL, and a summary of a V8 CPU profile of the server under load.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, railEnv, ROOT } from '../server/src/test-support/server-process';
import { BundleSources, packageOf, type ProfileFrame } from './profile-sources';

/** The fields of a /proc stat file after the command name (which may hold spaces): the state is field 0. */
function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a /proc stat file, in ms (clock ticks of 10 ms). */
function statCpuMs(path: string): number {
  const fields = statFields(path);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (user + system, ms) a process has used, all its threads (Linux /proc). */
export const processCpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/stat`);

/**
 * CPU time (user + system, ms) of a process's main thread, the one that runs JavaScript and, for SQLite, every
 * statement (Linux /proc). Its share of the wall time under load says whether the event loop is what limits the
 * server; processCpuMs also counts libuv's pool (the WAL syncs), GC helpers and the checkpoint worker.
 */
export const mainThreadCpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/task/${pid}/stat`);

/** How the scheduler has treated a process's main thread so far (Linux /proc). */
export interface ThreadScheduling {
  /** Involuntary context switches: times it was taken off a CPU while it could still run (preempted). */
  preemptions: number;
  /** Nanoseconds it spent runnable, waiting in a run queue for a CPU (schedstat's second field). */
  waitingNs: number;
}

/**
 * The main thread's preemptions and run-queue wait (NaN where the kernel keeps no schedstat). On PostgreSQL, each
 * statement the server sends wakes a backend on the two cores the server shares, which can take the server's CPU at
 * once. V8's CPU profile samples the thread at intervals of wall time, on a CPU or not, so it finds the thread in the
 * native call it was preempted in (its "(writev)" bucket); perf's cpu-clock counts only time on a CPU, and does not
 * (docs/benchmarks-reading.md, thirty-fifth session).
 */
export function mainThreadScheduling(pid: number): ThreadScheduling {
  const task = `/proc/${pid}/task/${pid}`;
  const preemptions = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`${task}/status`, 'utf8'))?.[1];
  const waitingNs = existsSync(`${task}/schedstat`) ? readFileSync(`${task}/schedstat`, 'utf8').trim().split(' ')[1] : undefined;
  return { preemptions: Number(preemptions ?? Number.NaN), waitingNs: Number(waitingNs ?? Number.NaN) };
}

/**
 * CPU time (user + system, ms) of every PostgreSQL process on the machine (Linux /proc, command name `postgres`): a
 * local database's share of a measure in which only one client loads it, its backends and its writers alike.
 */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += statCpuMs(`/proc/${entry}/stat`);
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/**
 * Minor page faults a process has taken so far (Linux /proc): each is the kernel giving it a page of memory it had
 * not touched yet (or mapping one of a file already in the page cache).
 */
export const minorFaults = (pid: number): number => Number(statFields(`/proc/${pid}/stat`)[7]);

/** The middle value of `values` (the upper of the two middle ones for an even count), NaN for none. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The value at `p` percent of `sorted` (ascending), NaN for none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * What one minor page fault costs on this machine, in microseconds: the median of three passes that each touch 32 MB
 * of memory this process had never touched, a page at a time. A virtual machine can make a fault several times dearer
 * than bare metal, and a start that builds its heap takes thousands of them (bench/startup.ts).
 */
export function microsecondsPerFault(): number {
  const PAGE = 4096;
  const passes: number[] = [];
  for (let pass = 0; pass < 3; pass += 1) {
    const memory = Buffer.allocUnsafeSlow(32 * 1024 * 1024);
    const faultsBefore = minorFaults(process.pid);
    const started = performance.now();
    for (let offset = 0; offset < memory.length; offset += PAGE) memory[offset] = 1;
    const us = (performance.now() - started) * 1000;
    const faults = minorFaults(process.pid) - faultsBefore;
    if (faults > 0) passes.push(us / faults);
  }
  return median(passes);
}

/**
 * A fixed piece of the work an API call does (build an object, JSON.stringify it, JSON.parse it, SHA-256 the text),
 * 20,000 times in a fresh node process, which prints its own milliseconds: the time includes V8 warming up, as a
 * server's first seconds do. Run as `node -e`'s text, kept here so that every run does the same work.
 */
const MACHINE_SPEED_WORK = `
const { createHash } = require('node:crypto');
const started = performance.now();
let digest = '';
for (let i = 0; i < 20000; i += 1) {
  const payment = { payment_id: 'pay_' + i, amount: 10000 + i, currency: 'INR', status: 'succeeded', metadata: { order: String(i), tags: ['a', 'b', 'c'] }, created_at: new Date(1767225600000 + i).toISOString() };
  const text = JSON.stringify(JSON.parse(JSON.stringify(payment)));
  digest = createHash('sha256').update(text + digest).digest('hex');
}
console.log(performance.now() - started);
`;

/**
 * How fast this machine is now, in the two ways that moved the figures most between runs (docs/benchmarks-reading.md,
 * eighteenth session): `node -e 0` from spawn to exit (what every start pays before any of Rail's code: reading and
 * mapping node's binary, its snapshot, its page faults), and MACHINE_SPEED_WORK's own time. Medians of 5 and of 3.
 * The figures of two runs on different machines compare only after each is read against its run's machine speed.
 */
export function machineSpeed(): { nodeStartMs: number; workMs: number } {
  const starts: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const started = performance.now();
    execFileSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    starts.push(performance.now() - started);
  }
  const works: number[] = [];
  for (let run = 0; run < 3; run += 1) works.push(Number(execFileSync(process.execPath, ['-e', MACHINE_SPEED_WORK], { encoding: 'utf8' }).trim()));
  return { nodeStartMs: median(starts), workMs: median(works) };
}

/** Resident set size of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/**
 * The largest VmRSS of a process, in MB, sampled every `intervalMs` until stop(): what a goal on memory under load is
 * about. A reading taken once after a load misses it: V8 collects its old generation only when it reaches the limit
 * set at its last full collection, so the resident memory of a loaded server rises and falls by tens of MB.
 */
export function sampleRssPeak(pid: number, intervalMs = 250): { stop(): number } {
  let peak = rssMb(pid);
  const sample = () => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process has ended: its last sample stands
    }
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/**
 * The command line docs/operations.md gives production (and `npm start` uses): the settings only it can make, since
 * V8 sizes its young generation and glibc its malloc arenas and thresholds before any JavaScript runs. Every spawned
 * server of the benchmarks runs with them, so that its memory is the memory the goals are about.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '4194304',
};

export interface BootedServer {
  child: ChildProcess;
  baseUrl: string;
  /** Milliseconds from spawn to the first 200 of /health. */
  startupMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns `node <args>` with a Rail environment and polls /health every 2 ms until it answers 200. `launcher` runs node
 * under another program (`valgrind --tool=callgrind`, say), which may need a longer `startTimeoutMs` (default 30 s).
 */
export async function bootServer(
  args: string[],
  options: { dataDir: string; databaseUrl?: string | undefined; env?: Record<string, string>; launcher?: readonly string[]; startTimeoutMs?: number },
): Promise<BootedServer> {
  const [port, jsPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const [command, ...commandArgs] = [...(options.launcher ?? []), process.execPath, ...args] as [string, ...string[]];
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...railEnv({ port, jsPort, dataDir: options.dataDir, databaseUrl: options.databaseUrl, logLevel: 'error' }), RAIL_RATE_LIMITS: 'off', ...options.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited during start (${args.join(' ')})`);
    if (performance.now() - started > startTimeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /health within ${startTimeoutMs / 1000} s`);
    }
    const ok = await fetch(`${baseUrl}/health`).then((response) => response.status === 200, () => false);
    if (ok) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 2));
  }
  const startupMs = performance.now() - started;
  return {
    child,
    baseUrl,
    startupMs,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** pgbench's built-in TPC-B-like transaction (5 statements, durable) at `clients` clients for `seconds`. */
export function pgbenchTps(databaseUrl: string, clients: number, seconds: number): number {
  execFileSync('pgbench', ['-i', '-q', '-s', '1', databaseUrl], { stdio: 'ignore' });
  const output = execFileSync('pgbench', ['-c', String(clients), '-j', '2', '-T', String(seconds), databaseUrl], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1];
  if (tps === undefined) throw new Error(`pgbench printed no tps:\n${output}`);
  return Number(tps);
}

/** Transactions timed and their p50 and p99 (ms). */
export interface TransactionLatency {
  transactions: number;
  p50: number;
  p99: number;
}

/**
 * One of pgbench's built-in scripts in an open loop at `tps` (its --rate: each client starts transactions on a
 * schedule, and each is timed from when it was due, schedule lag included, as the open loop of bench/load.ts times a
 * payment) for `seconds`: the database's own latency at that rate, on the tables pgbenchTps made.
 */
export function pgbenchOpenLoopLatency(databaseUrl: string, script: string, clients: number, tps: number, seconds: number): TransactionLatency {
  const dir = mkdtempSync(join(tmpdir(), 'rail-pgbench-'));
  try {
    const rate = String(Math.max(1, Math.round(tps)));
    const args = ['-b', script, '-c', String(clients), '-j', '2', '-R', rate, '-T', String(seconds), '-l', `--log-prefix=${join(dir, 'log')}`];
    execFileSync('pgbench', [...args, databaseUrl], { stdio: 'ignore' });
    // One line a transaction: client, transaction number, latency (us, from its scheduled start under --rate), ...
    const latencies = readdirSync(dir)
      .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n'))
      .filter((line) => line !== '')
      .map((line) => Number(line.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    return { transactions: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ProfileNode {
  id: number;
  callFrame: ProfileFrame;
  hitCount?: number;
}

/**
 * Where a profile sample's time goes: an npm package, a folder of Rail's own code, or V8 itself (GC, native, idle).
 * The server's bundle is named by its source map (profile-sources.ts): the packages bundled in by their names.
 */
function category(node: ProfileNode, sources: BundleSources): string {
  const { url, functionName } = node.callFrame;
  if (url === '') return functionName === '' ? '(anonymous native)' : `(${functionName.replace(/^\(|\)$/g, '')})`;
  const owner = sources.ownerOf(node.callFrame);
  if (owner !== undefined) return owner;
  const pkg = packageOf(url);
  if (pkg !== undefined) return pkg;
  if (url.includes('dist/server/')) return 'rail (dist/server)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url;
}

/**
 * The main thread's profile among the files --cpu-prof wrote (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile):
 * each worker thread writes one too, and the SQLite checkpoint worker's, idle nearly all the time, counted beside the
 * main thread's made the server look half idle under load ("(idle) 50 %" in the SQLite tables until the ninth
 * session).
 */
const isMainThreadProfile = (name: string) => name.endsWith('.cpuprofile') && name.split('.')[4] === '0';

/** The main thread's profile of one process that --cpu-prof wrote into `dir`, parsed. */
export function mainThreadProfile<Profile>(dir: string): Profile {
  const file = readdirSync(dir).find(isMainThreadProfile);
  if (file === undefined) throw new Error(`no main-thread CPU profile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
}

/** Share of self time by category in the main thread's .cpuprofile in `dir`, largest first. */
export function summarizeProfile(dir: string, top = 12): { category: string; percent: number }[] {
  const totals = new Map<string, number>();
  const sources = new BundleSources();
  let all = 0;
  for (const file of readdirSync(dir).filter(isMainThreadProfile)) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      const name = category(node, sources);
      totals.set(name, (totals.get(name) ?? 0) + hits);
      all += hits;
    }
  }
  return [...totals.entries()]
    .map(([name, hits]) => ({ category: name, percent: (100 * hits) / Math.max(1, all) }))
    .sort((a, b) => b.percent - a.percent)
    .slice(0, top);
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
