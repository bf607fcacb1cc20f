/**
 * Instructions per payment API call of the compiled server, counted by valgrind (callgrind), without and with an
 * Idempotency-Key: a measure of the server's CPU work that this machine's other work does not move. The timed A/Bs
 * (bench/ab.ts) read two servers of one build up to 8 % apart here, more than most changes of one component. After
 * the warm-up below, counts of one build repeated within 2-4 % without a key and 3-10 % with one here, though one
 * build's plain counts on PostgreSQL once spread by 18 % (docs/benchmarks-reading.md, thirty-fifth session).
 *
 * Each run starts the server (dist/server/main.js with production's flags) under `valgrind --tool=callgrind` with
 * the counting off, runs WARM_UP payments without a key and WARM_UP with (create, then confirm, four at a time; the
 * JIT settles: below), then counts `payments` payments four times, plain, keyed, keyed, plain: counting turned on
 * (callgrind_control), the payments, counting off, the total read. The total is of every thread of the server
 * process and of everything that runs in it (Node, V8's compiled code, SQLite), not of the kernel's system calls:
 * valgrind counts user-space instructions. On PostgreSQL the database's own processes are not counted. Instructions are not time: a cache miss
 * or a system call costs the same count whatever it waits for, so this complements the timed A/B, not replaces it.
 *
 *   node --import tsx bench/instructions.ts [payments per count=500] [runs=2]
 * BENCH_BASELINE=<another build's main.js> counts that build too, in alternating runs, and prints the ratio.
 * DATABASE_URL (any value) runs the servers on PostgreSQL: a fresh database per run, made where the tests make theirs
 * (RAIL_TEST_DATABASE_URL). Needs valgrind (Debian's package `valgrind`) and a built server (`npm run build`). Under
 * valgrind a server runs some 50 times slower: a run of one build takes three to four minutes. Never part of the test run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../server/src/test-support/harness';
import { FIXED_SECRET_KEY, ROOT } from '../server/src/test-support/server-process';
import { CREATE_BODY } from './load';
import { bootServer, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, tempDir } from './process-metrics';

const PAYMENTS = Number(process.argv[2] ?? 500);
const RUNS = Number(process.argv[3] ?? 2);
/**
 * Uncounted payments of each kind first. After 300 of each, V8's optimizing compiler (its own threads, which callgrind
 * counts with the rest) was still at work: the next 500 payments counted 1,360k of its instructions per call (of
 * 2,648k), and the counts of one server ran from 1,014k to 2,648k per call. After 1,500 of each it was 8-88k, and the
 * counts read 915-1,251k (docs/benchmarks-reading.md, thirty-fifth session). A payment is quicker once compiled, so
 * the longer warm-up adds about a minute to a run.
 */
const WARM_UP = 2_000;
const CONCURRENCY = 4;
const ENGINE = process.env['DATABASE_URL'] ? 'postgres' : 'sqlite';

for (const tool of ['valgrind', 'callgrind_control']) {
  if (spawnSync(tool, ['--version']).error !== undefined) {
    process.stderr.write(`bench/instructions.ts needs ${tool} (apt-get install -y valgrind)\n`);
    process.exit(2);
  }
}

const builds = [resolve(ROOT, 'dist/server/main.js'), ...(process.env['BENCH_BASELINE'] ? [resolve(process.env['BENCH_BASELINE'])] : [])];

/**
 * Payments of create+confirm, CONCURRENCY at a time; a key on every call when keyed. A count of payments, not a
 * duration (bench/load.ts's runChain): no call is cut off at a window's end, counted in part.
 */
async function pay(baseUrl: string, count: number, keyed: boolean): Promise<void> {
  let left = count;
  const headers = () => ({ 'content-type': 'application/json', 'api-key': FIXED_SECRET_KEY, ...(keyed ? { 'idempotency-key': crypto.randomUUID() } : {}) });
  const worker = async () => {
    while (left-- > 0) {
      const created = await fetch(`${baseUrl}/payments`, { method: 'POST', headers: headers(), body: CREATE_BODY });
      const { payment_id: paymentId } = (await created.json()) as { payment_id?: string };
      if (created.status !== 200 || paymentId === undefined) throw new Error(`create answered ${created.status}`);
      const confirmed = await fetch(`${baseUrl}/payments/${paymentId}/confirm`, { method: 'POST', headers: headers(), body: '{}' });
      await confirmed.arrayBuffer();
      if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** One server under callgrind: instructions per API call, plain and keyed, each the mean of two counts of PAYMENTS payments. */
async function countOnce(entry: string): Promise<{ plain: number; keyed: number }> {
  const dir = tempDir('rail-instructions-');
  const database: TestDatabase | undefined = ENGINE === 'postgres' ? await createTestDatabase('postgres') : undefined;
  const out = join(dir.path, 'callgrind.out');
  const booted = await bootServer([...PRODUCTION_NODE_FLAGS, entry], {
    dataDir: dir.path,
    databaseUrl: database?.databaseUrl,
    env: { ...PRODUCTION_ENV },
    launcher: ['valgrind', '-q', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`],
    startTimeoutMs: 180_000,
  });
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(booted.child.pid)], { stdio: 'ignore' });
  let dumps = 0;
  /** Counts `payments` payments: the instructions of the dump written after them, per API call. */
  const count = async (keyed: boolean) => {
    control('-i', 'on');
    await pay(booted.baseUrl, PAYMENTS, keyed);
    control('-i', 'off');
    control('-d');
    dumps += 1;
    const file = `${out}.${dumps}`;
    // callgrind_control returns once the dump is asked for; the file is complete once its totals line is written.
    for (let waited = 0; !/^totals: \d+/m.test(readOrEmpty(file)); waited += 100) {
      if (waited > 30_000) throw new Error(`no callgrind dump at ${file}`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
    return Number(/^totals: (\d+)/m.exec(readOrEmpty(file))?.[1]) / (2 * PAYMENTS);
  };
  try {
    await pay(booted.baseUrl, WARM_UP, false);
    await pay(booted.baseUrl, WARM_UP, true);
    // Plain, keyed, keyed, plain: what still drifts within a server (its compiler's late work, its heap's growth)
    // falls on both kinds alike.
    const first = await count(false);
    const keyed = ((await count(true)) + (await count(true))) / 2;
    return { plain: (first + (await count(false))) / 2, keyed };
  } finally {
    booted.child.kill('SIGKILL');
    await booted.stop();
    await database?.drop();
    dir.remove();
  }
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const thousands = (value: number) => `${Math.round(value / 1000).toLocaleString('en-US')}k`;

process.stdout.write(
  `instructions per API call (callgrind), ${ENGINE}, 2 counts of ${PAYMENTS} payments per kind after ${WARM_UP} uncounted of each, ${RUNS} runs per build\n`,
);
const counts = builds.map(() => ({ plain: [] as number[], keyed: [] as number[] }));
for (let run = 0; run < RUNS; run += 1) {
  // Alternating builds, the first build first in even runs: a slow drift of the machine falls on both.
  const order = run % 2 === 0 ? builds.map((_, index) => index) : builds.map((_, index) => index).reverse();
  for (const index of order) {
    const entry = builds[index] as string;
    const { plain, keyed } = await countOnce(entry);
    (counts[index] as { plain: number[] }).plain.push(plain);
    (counts[index] as { keyed: number[] }).keyed.push(keyed);
    process.stdout.write(`run ${run + 1} ${entry}: plain ${thousands(plain)}, keyed ${thousands(keyed)} (${(keyed / plain).toFixed(3)}x)\n`);
  }
}
for (const [index, entry] of builds.entries()) {
  const { plain, keyed } = counts[index] as { plain: number[]; keyed: number[] };
  const spread = (values: number[]) => `${thousands(Math.min(...values))}-${thousands(Math.max(...values))}`;
  process.stdout.write(
    `${entry}: mean plain ${thousands(mean(plain))} (${spread(plain)}), keyed ${thousands(mean(keyed))} (${spread(keyed)}); keyed / plain ${(mean(keyed) / mean(plain)).toFixed(3)}x\n`,
  );
}
if (builds.length === 2) {
  const [current, baseline] = counts as [{ plain: number[]; keyed: number[] }, { plain: number[]; keyed: number[] }];
  process.stdout.write(
    `this build / baseline (means): plain ${(mean(current.plain) / mean(baseline.plain)).toFixed(3)}x, keyed ${(mean(current.keyed) / mean(baseline.keyed)).toFixed(3)}x\n`,
  );
}
