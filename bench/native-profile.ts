/**
 * Where a payment API call's CPU goes in the whole server process, native code included, without and with an
 * Idempotency-Key: `perf record` (the cpu-clock software event, with call graphs) samples every thread of the compiled
 * server over windows of create+confirm at a fixed rate, plain and keyed in turn (bench/traced-windows.ts), and the
 * server runs with `--perf-basic-prof-only-functions`, so that V8's compiled JavaScript is named too. Prints the sampled CPU per
 * call by thread and by library (Node and V8, the JavaScript, SQLite's better_sqlite3.node, libc, the kernel), then
 * the functions whose time per call differs most between the two kinds of window, by own time and with what they call.
 *
 * The CPU profile of `npm run bench` (V8's, the main thread's JavaScript) shows native work only as "(program)" or
 * the binding that called it; this one found, for instance, SQLite's page cache scanned whole at some keyed COMMITs
 * (docs/benchmarks-reading.md, thirty-third session). Sampling with call graphs slows the server, so its figures are
 * above the bench's: compare the two columns with each other, not with docs/benchmarks.md. Needs perf (Debian's
 * package `linux-perf`; the cpu-clock event works where hardware counters are "not supported", as in a virtual
 * machine) and a built server (`npm run build`). Never part of the test run.
 *
 *   node --import tsx bench/native-profile.ts [calls per second=600] [seconds per window=5] [pairs of windows=2]
 * BENCH_SERVER_ENTRY profiles another build's main.js; DATABASE_URL runs the server on PostgreSQL (its own processes
 * are not sampled). BENCH_PERF_FREQUENCY sets the samples per second (default 2000).
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { runTracedWindows, windowArguments } from './traced-windows';

const [RATE, SECONDS, PAIRS] = windowArguments(process.argv);
const FREQUENCY = Number(process.env['BENCH_PERF_FREQUENCY'] ?? 2000);
const ROWS = 20;

if (spawnSync('perf', ['--version']).error !== undefined) {
  process.stderr.write('bench/native-profile.ts needs perf (apt-get install -y linux-perf)\n');
  process.exit(2);
}

interface Profile {
  calls: number;
  /** Sample counts. */
  samples: number;
  byThread: Map<string, number>;
  byLibrary: Map<string, number>;
  self: Map<string, number>;
  /** Of the server's JavaScript and of SQLite only: the event loop's and V8's frames hold every call alike. */
  inclusive: Map<string, number>;
}

const emptyProfile = (): Profile => ({ calls: 0, samples: 0, byThread: new Map(), byLibrary: new Map(), self: new Map(), inclusive: new Map() });
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** One frame of `perf script -F tid,ip,sym,dso`: the address, the symbol, the library in parentheses. */
const FRAME = /^\s*[0-9a-f]+\s+(.*)\s+\(([^()]*)\)\s*$/;

const JAVASCRIPT = 'JavaScript (V8-compiled, the perf map)';
const INCLUSIVE_LIBRARIES = new Set([JAVASCRIPT, 'better_sqlite3.node']);

/** A library's short name; V8's compiled JavaScript comes from the perf map that the server writes. */
function libraryName(dso: string): string {
  if (/perf-\d+\.map$/.test(dso)) return JAVASCRIPT;
  if (dso.startsWith('[kernel')) return 'the kernel';
  return basename(dso);
}

/** A function's name, with the server's paths made relative to the project. */
const functionName = (symbol: string, library: string) =>
  symbol === '[unknown]' ? `[unknown] in ${library}` : symbol.replaceAll(`${process.cwd()}/`, '');

/** Adds one window's samples to `into`: per thread (the main thread is the server's pid), library and function. */
async function readSamples(file: string, pid: number, into: Profile): Promise<void> {
  const script = spawn('perf', ['script', '-i', file, '-F', 'tid,ip,sym,dso'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let frames: { name: string; library: string }[] = [];
  let thread = '';
  const endSample = () => {
    if (thread === '') return;
    into.samples += 1;
    add(into.byThread, thread === String(pid) ? 'main thread (the JavaScript; on SQLite its statements too)' : "other threads (V8's, libuv's; on SQLite the checkpoints)");
    const leaf = frames[0];
    if (leaf !== undefined) {
      add(into.byLibrary, leaf.library);
      add(into.self, leaf.name);
    }
    const named = frames.filter((frame) => INCLUSIVE_LIBRARIES.has(frame.library));
    for (const name of new Set(named.map((frame) => frame.name))) add(into.inclusive, name);
    frames = [];
    thread = '';
  };
  for await (const line of createInterface({ input: script.stdout })) {
    if (line.trim() === '') {
      endSample();
      continue;
    }
    const frame = FRAME.exec(line);
    if (frame !== null && thread !== '') {
      const library = libraryName(frame[2] ?? '');
      frames.push({ name: functionName(frame[1] ?? '[unknown]', library), library });
    } else if (frame === null) {
      endSample();
      thread = line.trim().split(/\s+/)[0] ?? '';
    }
  }
  endSample();
}

const perCall = (profile: Profile, samples: number | undefined) => ((samples ?? 0) * 1e6) / FREQUENCY / Math.max(1, profile.calls);
const column = (value: number) => value.toFixed(1).padStart(8);

/** The rows of `key` in both profiles, per call: threads and libraries by keyed time, functions by keyed-minus-plain. */
function printRows(title: string, plain: Profile, keyed: Profile, key: 'byThread' | 'byLibrary' | 'self' | 'inclusive', rows: number): void {
  process.stdout.write(`\n${title}\n${'plain'.padStart(8)}${'keyed'.padStart(8)}${'diff'.padStart(8)}\n`);
  const names = new Set([...plain[key].keys(), ...keyed[key].keys()]);
  const table = [...names].map((name) => {
    const [a, b] = [perCall(plain, plain[key].get(name)), perCall(keyed, keyed[key].get(name))];
    return { name, a, b, diff: b - a };
  });
  table.sort((x, y) => (key === 'byThread' || key === 'byLibrary' ? y.b - x.b : y.diff - x.diff));
  for (const row of table.slice(0, rows)) process.stdout.write(`${column(row.a)}${column(row.b)}${column(row.diff)}  ${row.name.slice(0, 110)}\n`);
}

const files: string[] = [];
let serverPid: number | undefined;
try {
  const result = await runTracedWindows<{ file: string; calls: number }>({
    rate: RATE,
    seconds: SECONDS,
    pairs: PAIRS,
    nodeFlags: ['--perf-basic-prof-only-functions'],
    attachMs: 300,
    startTracer: ({ pid }, { keyed, index }) => {
      serverPid = pid;
      const file = join(tmpdir(), `rail-native-profile-${pid}-${index}-${keyed ? 'keyed' : 'plain'}.data`);
      files.push(file);
      return spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(FREQUENCY), '-g', '-p', String(pid), '-o', file], { stdio: 'ignore' });
    },
    collect: (_server, window) => ({ file: files[window.index] as string, calls: window.calls }),
  });
  const pid = serverPid as number;
  const [plain, keyed] = [emptyProfile(), emptyProfile()];
  for (const [windows, profile] of [[result.plain, plain], [result.keyed, keyed]] as const) {
    for (const window of windows) {
      profile.calls += window.calls;
      await readSamples(window.file, pid, profile);
    }
  }
  process.stdout.write(
    `${result.entry}, ${result.engine}, create+confirm at ${RATE} calls/s asked, ${SECONDS} s windows x ${PAIRS}, ` +
      `perf record -e cpu-clock -F ${FREQUENCY} -g\n` +
      `calls: ${plain.calls} plain, ${keyed.calls} keyed; sampled CPU per call (us): ${perCall(plain, plain.samples).toFixed(1)} plain, ` +
      `${perCall(keyed, keyed.samples).toFixed(1)} keyed (${(perCall(keyed, keyed.samples) / perCall(plain, plain.samples)).toFixed(2)}x)\n`,
  );
  printRows('CPU per call by thread (us)', plain, keyed, 'byThread', ROWS);
  printRows('CPU per call by library, own time (us)', plain, keyed, 'byLibrary', ROWS);
  printRows(`functions, own time per call (us): the ${ROWS} largest differences`, plain, keyed, 'self', ROWS);
  printRows(`the server's JavaScript and SQLite's functions, with what they call, per call (us): the ${ROWS * 2} largest differences`, plain, keyed, 'inclusive', ROWS * 2);
} finally {
  for (const file of files) rmSync(file, { force: true });
  if (serverPid !== undefined) rmSync(`/tmp/perf-${serverPid}.map`, { force: true });
}
