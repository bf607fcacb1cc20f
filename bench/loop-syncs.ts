/**
 * Which fsyncs block the server's event loop: one compiled server under the open loop of the bench's half-load
 * figure, with strace counting fsync / fdatasync per thread and file. The main thread's are the event loop's: of the
 * database file, a checkpoint of the request connection's own (wal_autocheckpoint); of the WAL, the sync of a new
 * WAL header when a write starts the WAL over. The others are the group commit's WAL syncs on libuv's thread pool and
 * the checkpoint worker's. Prints the client's p50 / p99 and each set's count, sum and percentiles. Never part of
 * the test run; needs strace (Debian). strace stops the process at every sync it reports (some 1,500 a second here,
 * --seccomp-bpf or not): the client's latencies under it are not the server's (at 200 payments/s, p50 1.1 s against
 * 5 ms without), only the counts are.
 *
 *   node --import tsx bench/loop-syncs.ts <dist/server/main.js> [payments/s=30] [seconds=10]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXED_SECRET_KEY } from '../server/src/test-support/server-process';
import { openLoopPayments, runChain } from './load';
import { bootServer, tempDir } from './process-metrics';

const [main, rate = '30', seconds = '10'] = process.argv.slice(2);
if (main === undefined) throw new Error('usage: bench/loop-syncs.ts <main.js> [payments/s] [seconds]');
const dir = tempDir('rail-strace-');
const server = await bootServer([main], { dataDir: dir.path });
await runChain(server.baseUrl, { connections: 16, seconds: 2, apiKey: FIXED_SECRET_KEY });
const pid = server.child.pid!;
const log = join(dir.path, 'strace.log');
const strace = spawn('strace', ['-f', '--seccomp-bpf', '-y', '-T', '-e', 'trace=fsync,fdatasync', '-o', log, '-p', String(pid)], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 500));
const latency = await openLoopPayments(server.baseUrl, FIXED_SECRET_KEY, Number(rate), Number(seconds));
strace.kill('SIGINT');
await new Promise((r) => strace.once('exit', r));
await server.stop();
const byThread = { mainDatabase: [] as number[], mainWal: [] as number[], other: [] as number[] };
const lines = readFileSync(log, 'utf8').split('\n');
for (const line of lines) {
  // -y names the file: `1234 fdatasync(21</tmp/.../rail.sqlite-wal>) = 0 <0.000412>`
  const match = /^(\d+)\s+(?:fsync|fdatasync)\(\d+<([^>]*)>.*<([\d.]+)>/.exec(line);
  if (!match) continue;
  const ms = Number(match[3]) * 1000;
  if (Number(match[1]) !== pid) byThread.other.push(ms);
  else (match[2]!.endsWith('-wal') ? byThread.mainWal : byThread.mainDatabase).push(ms);
}
dir.remove();
const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
const q = (s: number[], p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(1);
const show = (v: number[]) => { const s = [...v].sort((a, b) => a - b); return `n ${v.length} sum ${sum(v).toFixed(0)} ms p50 ${q(s, 0.5)} p90 ${q(s, 0.9)} p99 ${q(s, 0.99)} max ${q(s, 1)}`; };
console.log(
  `${main} payments ${latency.payments}: p50 ${latency.p50.toFixed(1)} p99 ${latency.p99.toFixed(1)} ms; syncs on the event loop, database file (its own checkpoints): ${show(byThread.mainDatabase)}; WAL (headers of a WAL started over): ${show(byThread.mainWal)}; off it: ${show(byThread.other)}`,
);
