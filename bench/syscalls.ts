/**
 * The system calls a payment API call costs the compiled server, without and with an Idempotency-Key: the server
 * (dist/server/main.js, production's command line, SQLite in a temporary directory, or PostgreSQL at DATABASE_URL,
 * whose own processes are not traced) is traced with `strace -f` over windows of create+confirm at a fixed rate,
 * plain and keyed in turn. Prints, per call, every system call by name, and the page reads and writes (pread64,
 * pwrite64) by file and thread: on SQLite, the WAL's frames that COMMIT writes on the main thread (a 24-byte frame
 * header, then the page, each its own pwrite64), and the checkpoints of the worker thread
 * (storage/sqlite-checkpointer.ts), which read frames back from the WAL and write them into the database file.
 *
 * Counts, not times: strace slows every call it sees, so the fixed rate may not be reached (the printed calls say how
 * many were served); on a virtual machine where a system call or a page fault is dear, a count per call is what
 * says where a keyed call's extra cost can come from (docs/benchmarks-reading.md, thirty-second session). Needs
 * strace (Debian's package `strace`) and a built server (`npm run build`). Never part of the test run.
 *
 *   node --import tsx bench/syscalls.ts [calls per second=600] [seconds per window=5] [pairs of windows=2]
 * BENCH_SERVER_ENTRY traces another build's main.js (a copy of dist/server/ elsewhere) instead of dist/server/main.js.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTracedWindows, windowArguments } from './traced-windows';

const [RATE, SECONDS, PAIRS] = windowArguments(process.argv);
const FILE_CALLS = new Set(['pread64', 'pwrite64']);

if (spawnSync('strace', ['-V']).error !== undefined) {
  process.stderr.write('bench/syscalls.ts needs strace (apt-get install -y strace)\n');
  process.exit(2);
}

/** One traced line of `strace -f -qq`: the thread, the call, its first argument (a descriptor for file calls), its count. */
const TRACED = /^(\d+)\s+(\w+)\((\d+)?(?:,.*?,\s*(\d+)(?:,\s*\d+)?(?:\)|\s*<unfinished))?/;

interface Window {
  calls: number;
  byCall: Map<string, number>;
  byFile: Map<string, number>;
}

/** What the traced lines of one window count, with descriptors named by the files they had open at its end. */
function countTrace(text: string, pid: number, files: Map<string, string>, calls: number): Window {
  const byCall = new Map<string, number>();
  const byFile = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const line of text.split('\n')) {
    const traced = TRACED.exec(line);
    if (traced === null) continue;
    const [, thread, name, fd, bytes] = traced as unknown as [string, string, string, string | undefined, string | undefined];
    add(byCall, name);
    if (!FILE_CALLS.has(name) || fd === undefined) continue;
    // A read's arguments are printed when it returns: one that another thread's line interrupted shows no size.
    const size = bytes === undefined ? ', size not shown' : Number(bytes) <= 32 ? ', a frame header' : ', a page or more';
    add(byFile, `${name} ${files.get(fd) ?? `fd ${fd}`} (${thread === String(pid) ? 'main thread' : 'other thread'}${size})`);
  }
  return { calls, byCall, byFile };
}

/** The files the process has open, by descriptor, with the data directory left out of their paths. */
function openFiles(pid: number, dataDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      files.set(fd, readlinkSync(`/proc/${pid}/fd/${fd}`).replace(dataDir, ''));
    } catch {
      // closed meanwhile
    }
  }
  return files;
}

function print(label: string, windows: Window[]): void {
  const calls = windows.reduce((sum, window) => sum + window.calls, 0);
  process.stdout.write(`\n${label}: ${calls} calls in ${windows.length} windows (per call)\n`);
  for (const key of ['byCall', 'byFile'] as const) {
    const totals = new Map<string, number>();
    for (const window of windows) for (const [name, count] of window[key]) totals.set(name, (totals.get(name) ?? 0) + count);
    const rows = [...totals].sort((a, b) => b[1] - a[1]).filter(([, count]) => count / calls >= 0.01);
    for (const [name, count] of rows) process.stdout.write(`  ${name.padEnd(72)} ${(count / calls).toFixed(2)}\n`);
    if (key === 'byCall') process.stdout.write(`  ${'all system calls'.padEnd(72)} ${([...totals.values()].reduce((a, b) => a + b, 0) / calls).toFixed(2)}\n`);
  }
}

const traceFile = (pid: number) => join(tmpdir(), `rail-syscalls-${pid}.txt`);
let tracedPid: number | undefined;
try {
  const result = await runTracedWindows<Window>({
    rate: RATE,
    seconds: SECONDS,
    pairs: PAIRS,
    // strace attaches to each thread in turn.
    attachMs: 500,
    startTracer: ({ pid }) => {
      tracedPid = pid;
      return spawn('strace', ['-f', '-qq', '-e', 'signal=none', '-o', traceFile(pid), '-p', String(pid)], { stdio: 'ignore' });
    },
    collect: ({ pid, dataDir }, { calls }) => countTrace(readFileSync(traceFile(pid), 'utf8'), pid, openFiles(pid, dataDir), calls),
  });
  process.stdout.write(`${result.entry}, ${result.engine}, create+confirm at ${RATE} calls/s asked, ${SECONDS} s windows, strace -f\n`);
  print('without a key', result.plain);
  print('with an Idempotency-Key on every call', result.keyed);
} finally {
  if (tracedPid !== undefined) rmSync(traceFile(tracedPid), { force: true });
}
