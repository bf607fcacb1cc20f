/**
 * Where a restart's CPU goes, from V8 CPU profiles of starts: the built server (dist/server/main.js, production's
 * command line, SQLite) restarted on an existing store, and the bare Hono handler (bench/bare-server.mjs, the HTTP
 * stack Rail runs on) started in the same rounds, both with --cpu-prof and stopped right after their first 200.
 * Medians over the rounds of the main thread's sampled CPU by what ran:
 *
 * - Node's start: Node's bootstrap before the program's first line, and its module loader;
 * - the launcher (dist/server/main.js): reading the bundle and its V8 code cache, and compiling from them;
 * - Node's built-in modules compiled on first use (`node:http`, the fetch globals' undici, `node:zlib`, ...), by any
 *   code: they are not part of Node's own start;
 * - npm packages and Rail's folders by name (through the bundle's source map, bench/profile-sources.ts): for the
 *   server, a package's share includes the objects the code makes with it at its top level (zod's is the protocol's
 *   schemas, built when their modules are evaluated);
 * - the bundle's top level: the statements of every module's top level, which the bundle runs in one function that no
 *   mapping covers;
 * - V8: GC, and (program) (native work V8 does not attribute).
 * Idle samples (the start waiting on I/O) are left out, and a profile ends with the stop that follows the first 200 (a
 * few ms); what Node does before its profiler starts (V8's own start) is not in it. The profiler's sampling slows a start, so its CPU figures run
 * above bench/startup.ts's: compare the two columns with each other. A start also takes page faults (bench/startup.ts
 * counts them), which a profile spreads over whatever code touched the memory.
 *
 *   node --import tsx bench/start-profile.ts [rounds=5]
 * Build first (`npm run build`). Never part of the test run.
 */
import { resolve } from 'node:path';
import { ROOT } from '../server/src/test-support/server-process';
import { startBareHandler } from './load';
import { bootServer, mainThreadProfile, median, PRODUCTION_ENV, PRODUCTION_NODE_FLAGS, tempDir } from './process-metrics';
import { BundleSources, packageOf, type ProfileFrame } from './profile-sources';

/** The profiler's sampling interval (us): a start is some 300 ms, so 1,000 samples or more. */
const INTERVAL_US = 250;

interface Profile {
  nodes: { id: number; callFrame: ProfileFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** What the launcher and the bare handler are, by the file a frame ran in. */
const LAUNCHER = /dist\/server\/main\.js$/;
const BARE_HANDLER = /bench\/bare-server\.mjs$/;
/** Node's functions that compile a built-in module on its first require. */
const BUILTIN_LOADERS = new Set(['compileForInternalLoader', 'compileForPublicLoader']);

const BUILTINS = "Node's built-in modules, compiled on first use";

/**
 * The built-in module whose loading a sample is in, from the frames nearer the leaf than its loader's (stack index
 * `loader`): the module's top level, named by its URL (`node:zlib`; `undici` for the fetch globals' bundle), or
 * `(compiling)` when the sample is in the loader itself.
 */
function builtinOf(stack: readonly ProfileFrame[], loader: number): string {
  for (let index = loader - 1; index >= 0; index -= 1) {
    const frame = stack[index]!;
    if (frame.functionName === '' && frame.url !== '') return frame.url.replace(/^node:internal\/deps\/undici\/undici$/, 'undici').replace(/^node:internal\//, 'internal/');
  }
  return '(compiling)';
}

/** The part of the program a frame belongs to, or undefined for Node's and V8's own frames. */
function programPart(frame: ProfileFrame, sources: BundleSources): string | undefined {
  const owner = sources.ownerOf(frame);
  if (owner !== undefined) return owner;
  if (frame.url.endsWith('.cjs') && frame.url.includes('dist/server/')) return "the bundle's top level";
  if (LAUNCHER.test(frame.url)) return 'the launcher (main.js): the bundle and its code cache';
  if (BARE_HANDLER.test(frame.url)) return "the bare handler's own code";
  return packageOf(frame.url);
}

/**
 * The category of one sample, from its stack (leaf first): the innermost frame of the program (a package, a Rail folder,
 * the launcher, the bare handler) names it, except that the compiling of a built-in module on its first use is its
 * own category; without a frame of the program, V8's own work or Node's start.
 */
export function sampleCategory(stack: readonly ProfileFrame[], sources: BundleSources): string | undefined {
  const leaf = stack[0];
  if (leaf === undefined || leaf.functionName === '(idle)') return undefined;
  if (leaf.functionName === '(garbage collector)') return 'V8: garbage collector';
  // The outermost loader below the program's frame: the module the program asked for, not the ones it loads in turn.
  let loader: number | undefined;
  for (const [index, frame] of stack.entries()) {
    if (BUILTIN_LOADERS.has(frame.functionName) && frame.url.startsWith('node:internal/bootstrap')) {
      loader = index;
      continue;
    }
    const owner = programPart(frame, sources);
    if (owner !== undefined) return loader === undefined ? owner : `${BUILTINS}: ${builtinOf(stack, loader)}`;
  }
  if (loader !== undefined) return `${BUILTINS}: ${builtinOf(stack, loader)}`;
  if (leaf.functionName === '(program)') return 'V8: (program)';
  return "Node's start and module loader";
}

/** Sampled CPU (ms) of one profile by sampleCategory. */
function categorize(profile: Profile, sources: BundleSources): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const categoryOf = new Map<number, string | undefined>();
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    if (!categoryOf.has(id)) {
      const stack: ProfileFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!.callFrame);
      categoryOf.set(id, sampleCategory(stack, sources));
    }
    const category = categoryOf.get(id);
    // A sample's time is the delta to the next one.
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    if (category !== undefined) totals.set(category, (totals.get(category) ?? 0) + ms);
  });
  return totals;
}

/** V8's CPU profiler on, writing into `dir` at the process's exit. */
const profilerFlags = (dir: string) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL_US}`];

/**
 * A restart of the server profiled: spawn to the first 200 of /health (bench's bootServer), then stopped at once; the
 * profile, written at the exit, also holds the few ms of the stop.
 */
async function railStart(dataDir: string, dir: string): Promise<Profile> {
  const server = await bootServer([...profilerFlags(dir), ...PRODUCTION_NODE_FLAGS, 'dist/server/main.js'], { dataDir, env: PRODUCTION_ENV });
  await server.stop();
  return mainThreadProfile<Profile>(dir);
}

/** A start of the bare handler profiled: spawn to its first 200 (a payment's create), then stopped at once. */
async function bareStart(dir: string): Promise<Profile> {
  // A process a signal ends writes no profile, and the bare handler has no SIGTERM handler (Rail stops on its own).
  const exitOnTerm = "--import=data:text/javascript,process.once('SIGTERM',()=>process.exit(0))";
  const bare = await startBareHandler([...profilerFlags(dir), exitOnTerm]);
  try {
    const answer = await fetch(`${bare.url}/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1}' });
    if (answer.status !== 200) throw new Error(`the bare handler answered ${answer.status}`);
  } finally {
    await bare.stop();
  }
  return mainThreadProfile<Profile>(dir);
}

/** Sampled CPU by category, per start: ROUNDS restarts of the server and starts of the bare handler, alternating. */
async function profileStarts(rounds: number): Promise<{ rail: Map<string, number>[]; bare: Map<string, number>[] }> {
  const sources = new BundleSources();
  const runs = { rail: [] as Map<string, number>[], bare: [] as Map<string, number>[] };
  const data = tempDir('rail-start-profile-');
  try {
    // The first boot makes the store (migrations, bootstrap); the restarts profiled come after it.
    const first = tempDir('rail-start-profile-');
    await railStart(data.path, first.path).finally(() => first.remove());
    for (let round = 0; round < rounds; round += 1) {
      for (const which of round % 2 === 0 ? (['rail', 'bare'] as const) : (['bare', 'rail'] as const)) {
        const dir = tempDir('rail-start-profile-');
        try {
          runs[which].push(categorize(which === 'rail' ? await railStart(data.path, dir.path) : await bareStart(dir.path), sources));
        } finally {
          dir.remove();
        }
      }
    }
  } finally {
    data.remove();
  }
  return runs;
}

/** Each run's built-in modules summed into one category, for the first table. */
function withBuiltinsSummed(list: Map<string, number>[]): Map<string, number>[] {
  return list.map((totals) => {
    const summed = new Map<string, number>();
    for (const [category, ms] of totals) {
      const key = category.startsWith(`${BUILTINS}: `) ? BUILTINS : category;
      summed.set(key, (summed.get(key) ?? 0) + ms);
    }
    return summed;
  });
}

/** Table rows of the categories `keep` selects, medians over the runs, by what the server spends above the bare handler. */
function rows(rail: Map<string, number>[], bare: Map<string, number>[], keep: (category: string) => boolean, label = (category: string) => category): string[] {
  const medianOf = (list: Map<string, number>[], category: string) => median(list.map((totals) => totals.get(category) ?? 0));
  return [...new Set([...rail, ...bare].flatMap((totals) => [...totals.keys()]))]
    .filter(keep)
    .map((category) => ({ category, rail: medianOf(rail, category), bare: medianOf(bare, category) }))
    .filter((row) => row.rail >= 0.5 || row.bare >= 0.5)
    .sort((a, b) => b.rail - b.bare - (a.rail - a.bare))
    .map((row) => `| ${label(row.category)} | ${row.rail.toFixed(1)} | ${row.bare.toFixed(1)} | ${(row.rail - row.bare).toFixed(1)} |`);
}

/** Where a restart's CPU goes, as two Markdown tables: by what ran, and Node's built-in modules by name. */
export async function startProfile(rounds = 5): Promise<string> {
  const runs = await profileStarts(rounds);
  const total = (list: Map<string, number>[]) => median(list.map((totals) => [...totals.values()].reduce((sum, ms) => sum + ms, 0)));
  const [railTotal, bareTotal] = [total(runs.rail), total(runs.bare)];
  const header = ['| what ran | server | bare handler | server minus bare |', '|---|---:|---:|---:|'];
  return [
    `Restarts of dist/server/main.js (SQLite, an existing store) and starts of bench/bare-server.mjs, ${rounds} of each, alternating; the main thread's sampled CPU to the first 200 (V8's profiler, which slows a start), medians (ms), idle left out:`,
    '',
    ...header,
    ...rows(withBuiltinsSummed(runs.rail), withBuiltinsSummed(runs.bare), () => true),
    `| all (median of the totals) | ${railTotal.toFixed(1)} | ${bareTotal.toFixed(1)} | ${(railTotal - bareTotal).toFixed(1)} |`,
    '',
    `${BUILTINS}, by the module the code asked for (with what it loads in turn):`,
    '',
    ...header.map((line) => line.replace('what ran', 'module')),
    ...rows(runs.rail, runs.bare, (category) => category.startsWith(`${BUILTINS}: `), (category) => category.slice(BUILTINS.length + 2)),
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(ROOT, 'bench/start-profile.ts')) {
  startProfile(Number(process.argv[2] ?? 5)).then(
    (table) => console.log(table),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
