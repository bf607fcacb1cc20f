/**
 * Where the compiled server's memory goes under load: boots dist/server/main.js (or argv[2]) with
 * --heapsnapshot-signal, runs create -> confirm for a few rounds, and after each round and once idle prints RSS
 * and writes a heap snapshot; then prints, per constructor, how the count and retained-by-self size grew between
 * the first and the last loaded snapshot. Never part of the test run.
 *
 *   node --import tsx bench/memory.ts [main.js] [rounds=3] [seconds=5] [extra node flags...]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXED_SECRET_KEY } from '../server/src/test-support/server-process';
import { runChain } from './load';
import { bootServer, rssMb, tempDir } from './process-metrics';

const [main = 'dist/server/main.js', roundsArg = '3', secondsArg = '5', ...flags] = process.argv.slice(2);
const snapshots = tempDir('rail-heap-');
const data = tempDir('rail-mem-');
const server = await bootServer([...flags, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots.path}`, main], { dataDir: data.path });
const sleep = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));

async function snapshot(label: string): Promise<string> {
  const before = new Set(readdirSync(snapshots.path));
  server.child.kill('SIGUSR2');
  for (;;) {
    await sleep(200);
    const added = readdirSync(snapshots.path).filter((name) => !before.has(name));
    const file = added[0];
    // The file is complete when its size stops changing.
    if (file !== undefined) {
      const text = readFileSync(join(snapshots.path, file), 'utf8');
      if (text.endsWith(']}') || text.trimEnd().endsWith('}')) {
        try {
          JSON.parse(text);
          console.log(`${label}: snapshot ${file}`);
          return join(snapshots.path, file);
        } catch {
          // still being written
        }
      }
    }
  }
}

interface Summary {
  count: Map<string, number>;
  size: Map<string, number>;
  total: number;
}

function summarize(file: string): Summary {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = heap.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = heap.snapshot.meta.node_types[0];
  const count = new Map<string, number>();
  const size = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + typeAt]!]!;
    const name = type === 'object' || type === 'closure' ? `${type}:${heap.strings[heap.nodes[i + nameAt]!]}` : `(${type})`;
    const self = heap.nodes[i + sizeAt]!;
    count.set(name, (count.get(name) ?? 0) + 1);
    size.set(name, (size.get(name) ?? 0) + self);
    total += self;
  }
  return { count, size, total };
}

try {
  await sleep(500);
  console.log(`idle after start: rss ${rssMb(server.child.pid!).toFixed(0)} MB`);
  const files: string[] = [];
  files.push(await snapshot('idle after start'));
  for (let round = 0; round < Number(roundsArg); round += 1) {
    const result = await runChain(server.baseUrl, { connections: 16, seconds: Number(secondsArg), apiKey: FIXED_SECRET_KEY });
    console.log(`round ${round}: ${result.calls} calls, ${result.callsPerSecond.toFixed(0)} calls/s, rss ${rssMb(server.child.pid!).toFixed(0)} MB`);
    files.push(await snapshot(`after round ${round}`));
  }
  await sleep(5000);
  console.log(`idle 5 s after load: rss ${rssMb(server.child.pid!).toFixed(0)} MB`);
  files.push(await snapshot('idle after load'));
  const summaries = files.map(summarize);
  console.log(`heap (snapshot self sizes) MB: ${summaries.map((s) => (s.total / 1e6).toFixed(1)).join(' -> ')}`);
  const first = summaries[1]!;
  const last = summaries[summaries.length - 1]!;
  const growth = [...last.size.keys()]
    .map((name) => ({ name, count: (last.count.get(name) ?? 0) - (first.count.get(name) ?? 0), size: (last.size.get(name) ?? 0) - (first.size.get(name) ?? 0) }))
    .sort((a, b) => b.size - a.size)
    .slice(0, 25);
  console.log('growth from the first loaded snapshot to idle after load (count, bytes):');
  for (const row of growth) console.log(`  ${row.name}: ${row.count} objects, ${row.size} bytes`);
} finally {
  await server.stop();
  data.remove();
  if (process.env['KEEP_SNAPSHOTS'] === undefined) snapshots.remove();
  else console.log(`snapshots kept in ${snapshots.path}`);
}
