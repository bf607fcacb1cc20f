// Runs a CommonJS server bundle (dist/server/server.cjs, @rail/server's dist/cli.cjs) with a V8 code cache kept
// beside it, and maps the stack traces of its frames back to the TypeScript sources through its source map.
// scripts/build-server.mjs compiles this file into each bundle's entry (dist/server/main.js, dist/cli.js).
//
// Why: compiling the 1.6 MB bundle, and then each function it runs at start, is a third of the start's CPU time;
// V8 skips both when given the bytecode of a previous run. Node 20 has no module.enableCompileCache, and only
// vm.Script takes cachedData, hence a CommonJS bundle run through vm.Script rather than an ES module.
// The cache is written once per bundle, Node version and architecture (its file name carries all three), a second
// after start or at exit, whichever comes first, into a temporary file renamed into place: concurrent starts never
// read a half-written one, and V8 rejects one that does not fit (then it is written again). A directory that is not
// writable only means no cache.
//
// Node's --enable-source-maps does not apply to vm.Script, so the bundle's frames are mapped here instead: the
// source map is read on the first stack trace that has such a frame, never at start, and only its `mappings` text
// and `sources` are kept (MappingsIndex). Node's SourceMap decoded the 1.3 MB of mappings into 240,000 arrays: 30 MB
// of heap kept for the process's life and 640 ms on the event loop at the first mapped stack, which on PostgreSQL
// is the first failed query (Kysely reads the error's stack to extend it), such as the migrations' first check.
// The index keeps some 2 MB and takes 30-80 ms to build (most of it parsing the map's JSON), a lookup 1-2 µs.
//
// The server process runs without V8's allocation-site pretenuring (SERVER_V8_START_FLAGS, set before the bundle is
// compiled), except while the bundle's top level runs (SERVER_V8_EVALUATION_FLAGS), and gets fixed growth factors
// for V8's old generation: 2 from the start (SERVER_V8_START_FLAGS), 1.45 once it has started (SERVER_V8_FLAGS).
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * V8 flags the launched server runs with, set at run time so that every way of starting it (node dist/server/main.js,
 * `rail start`, npm start) gets them without flags on its command line. Under load, V8 lets the old generation grow
 * to up to 4 times what survived the last full collection before it collects again (a factor it picks from the
 * collection's speed): the server keeps some 15 MB alive, and its old space stood at 23-46 MB after 10 s of load,
 * the rest objects promoted out of the young generation that died there. A factor of 1.45 holds it under about
 * 30 MB. 1.3 held it at about 24 MB, but its full collection every 3 s at half load (13 ms of incremental marking on
 * the event loop, with the concurrent marking on the second core) was where three of five clusters of the half-load
 * tail fell; 1.45 gave a half-load p99 of 0.69x and 1-3 MB more after load in a same-window A/B
 * (docs/benchmarks-reading.md, sixth session). Read at each collection, so setting it after start works (unlike the
 * young generation's size, which only a command-line flag sets).
 */
export const SERVER_V8_FLAGS = ['--heap-growing-percent=45'];

/**
 * V8 flags set before the bundle is compiled, so that its code never carries what they turn off. V8 allocates the
 * objects of an allocation site straight in the old generation once most of them have survived a young collection
 * ("pretenuring"). A request's objects survive one when something long-lived refers to them at that moment, such
 * as the router's nodes, which keep the parameters of the last request through them, so under load V8 pretenured
 * sites whose objects die a few milliseconds later: the old generation filled with garbage and V8 ran a full
 * collection three times a second (14 in 5 s of the closed loop, 3-4 with this flag). Set after the start, it came
 * too late: the sites already pretenured stay so. Turned off, a same-window A/B at a fixed rate gave 0.91x
 * main-thread CPU per call, 0.87x for the whole process (V8's helper threads mark and sweep), and 0.65x the p99.
 *
 * And a growth factor of 2 for the old generation until SERVER_V8_FLAGS's takes over. The limit V8 sets at a full
 * collection holds until the next one, and a start's full collection (there is one while the top level builds its
 * schemas) came before SERVER_V8_FLAGS were set, with V8's own factor, up to 4: the old generation then grew from
 * some 18 to 72 MB under the first seconds of load before V8 collected it, and the process's RSS peaked at 147-175 MB
 * before settling at 120-135 (probes of 14 s of the closed loop, both engines). With 2 from the start it peaked at
 * 125-136 MB; a start's heap stays under that limit, so the start takes no more collections (alternating restarts:
 * 0.98x the wall time, 0.93x the CPU, within the noise).
 */
export const SERVER_V8_START_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=100'];

/**
 * V8 flags set while the bundle's top level runs, and reverted to SERVER_V8_START_FLAGS as soon as it returns. That
 * run builds objects the server keeps for its life (the routes, and the zod schemas that protocol/lazy-schema.ts does
 * not defer to their first use): pretenuring suits those sites, whose objects do all survive, and V8 soon allocates
 * them straight in the old generation instead of copying them through the young one at each scavenge. The run is
 * synchronous: it returns before the event loop can hand the server a request, so no site is pretenured on a
 * request's account (what SERVER_V8_START_FLAGS is about).
 * Against pretenuring off throughout, four A/Bs of 16-30 alternating restarts each gave 0.94-0.98x the CPU to the
 * first 200 and 0.92-0.99x its wall time, the same RSS, and under load the same number of full collections per call;
 * the start's own GC time (--trace-gc) did not differ measurably (docs/benchmarks-reading.md, sixteenth session).
 * The bundle is compiled before they are set, and the code cache written after they are reverted: V8 stamps a cache
 * with a hash of the flags, and both stamps are SERVER_V8_START_FLAGS's.
 */
export const SERVER_V8_EVALUATION_FLAGS = ['--allocation-site-pretenuring'];

/**
 * The flags are set a second after the launch, once the start is over: a fixed factor makes V8 collect the old
 * generation each time it has grown by that much, which suits a server under load and not a start that is building
 * its long-lived objects (schemas, routes, statements). Set before the bundle ran, a start's CPU profile had 50 ms of
 * GC; set a second later, restart to first 200 took 0.92x as long (six alternating boots of each, twice).
 */
const SERVER_V8_FLAGS_DELAY_MS = 1000;

/**
 * Runs the bundle at `bundlePath` (built with content hash `bundleHash`) as a CommonJS module of its own directory.
 * @returns the bundle's module.exports
 */
export function runBundle(bundlePath, bundleHash) {
  for (const flag of SERVER_V8_START_FLAGS) setFlagsFromString(flag);
  const source = readFileSync(bundlePath, 'utf8');
  const cachePath = `${bundlePath}.${bundleHash}.${process.version}-${process.arch}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    cachedData = undefined;
  }
  // The bundle is the module wrapper function itself (build-server.mjs: SERVER_CJS_OPTIONS).
  const script = new Script(source, { filename: bundlePath, cachedData });
  const writeCache = cachedData === undefined || script.cachedDataRejected ? cacheWriter(script, cachePath) : undefined;
  // V8 stamps a code cache with a hash of its flags and rejects one whose stamp differs from the reading process's,
  // which starts without SERVER_V8_FLAGS: the cache is written before they are set (written after, every start
  // rejected it, compiled the bundle afresh and wrote it again).
  setTimeout(() => {
    writeCache?.();
    for (const flag of SERVER_V8_FLAGS) setFlagsFromString(flag);
  }, SERVER_V8_FLAGS_DELAY_MS).unref();
  if (writeCache !== undefined) process.once('exit', writeCache);
  mapStackTraces(bundlePath);
  const module = { exports: {} };
  for (const flag of SERVER_V8_EVALUATION_FLAGS) setFlagsFromString(flag);
  try {
    script.runInThisContext()(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  } finally {
    for (const flag of SERVER_V8_START_FLAGS) setFlagsFromString(flag);
  }
  return module.exports;
}

/** Writes the script's code cache to cachePath, once, however often it is called. */
function cacheWriter(script, cachePath) {
  let written = false;
  return () => {
    if (written) return;
    written = true;
    const temporary = `${cachePath}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cachePath);
    } catch {
      try {
        unlinkSync(temporary);
      } catch {
        // nothing was written
      }
    }
  };
}

/** Formats stack traces as V8 does, with the bundle's frames at their place in the sources. */
function mapStackTraces(bundlePath) {
  let sourceMap;
  const load = () => {
    if (sourceMap === undefined) {
      try {
        const payload = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8'));
        sourceMap = new MappingsIndex(
          payload.mappings,
          payload.sources.map((source) => resolve(dirname(bundlePath), source)),
        );
      } catch {
        sourceMap = null;
      }
    }
    return sourceMap;
  };
  const mapFrame = (frame) => {
    const text = frame.toString();
    if (frame.getFileName() !== bundlePath) return text;
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    const entry = load()?.findEntry(line - 1, column - 1);
    if (entry?.originalSource === undefined) return text;
    return text.replace(`${bundlePath}:${line}:${column}`, `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
  };
  Error.prepareStackTrace = (error, frames) => {
    let header;
    try {
      header = Error.prototype.toString.call(error);
    } catch {
      header = '<error>';
    }
    return header + frames.map((frame) => `\n    at ${mapFrame(frame)}`).join('');
  };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i += 1) BASE64_VALUE[BASE64.charCodeAt(i)] = i;

/** Segments decoded at most per lookup: a checkpoint of the decoding state is kept every this many. */
const SEGMENTS_PER_CHECKPOINT = 32;

/**
 * Finds entries of a source map (version 3) in its `mappings` text, as node:module's SourceMap.findEntry does (the
 * last segment at or before the position, on its line or an earlier one), without decoding it into objects: the text
 * is read once, keeping a checkpoint of the decoding state every SEGMENTS_PER_CHECKPOINT segments; a lookup decodes
 * from the checkpoint before the position.
 */
export class MappingsIndex {
  #mappings;
  #sources;
  /** Per checkpoint, 7 numbers: offset of a segment, its line and column, then the decoding state before it. */
  #checkpoints = [];
  /** Per generated line: its first checkpoint. */
  #lineStarts = [];

  constructor(mappings, sources, segmentsPerCheckpoint = SEGMENTS_PER_CHECKPOINT) {
    this.#mappings = mappings;
    this.#sources = sources;
    const state = [0, 0, 0, 0, 0];
    let line = 0;
    let inLine = 0;
    this.#lineStarts.push(0);
    for (let at = 0; at < mappings.length; ) {
      const code = mappings.charCodeAt(at);
      if (code === 59 /* ; */) {
        line += 1;
        inLine = 0;
        state[0] = 0;
        this.#lineStarts.push(this.#checkpoints.length / 7);
        at += 1;
        continue;
      }
      if (code === 44 /* , */) {
        at += 1;
        continue;
      }
      const before = [state[0], state[1], state[2], state[3]];
      const next = this.#decode(at, state);
      if (inLine % segmentsPerCheckpoint === 0) this.#checkpoints.push(at, line, state[0], ...before);
      inLine += 1;
      at = next;
    }
    this.#lineStarts.push(this.#checkpoints.length / 7);
  }

  /** The entry at a generated position (0-based line and column); empty when it maps to no source. */
  findEntry(line, column) {
    const checkpoints = this.#checkpoints;
    const end = this.#lineStarts[Math.min(line + 1, this.#lineStarts.length - 1)];
    // The last checkpoint at or before the position.
    let low = 0;
    let high = end - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const at = middle * 7;
      if (checkpoints[at + 1] < line || (checkpoints[at + 1] === line && checkpoints[at + 2] <= column)) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found === -1) return {};
    const at = found * 7;
    const segmentLine = checkpoints[at + 1];
    const state = [checkpoints[at + 3], checkpoints[at + 4], checkpoints[at + 5], checkpoints[at + 6], 0];
    const limit = segmentLine === line ? column : Number.POSITIVE_INFINITY;
    const text = this.#mappings;
    let offset = checkpoints[at];
    let entry = {};
    while (offset < text.length && text.charCodeAt(offset) !== 59) {
      const next = this.#decode(offset, state);
      if (state[0] > limit) break;
      entry = state[4] >= 4 ? { originalSource: this.#sources[state[1]], originalLine: state[2], originalColumn: state[3] } : {};
      offset = next;
      if (offset < text.length && text.charCodeAt(offset) === 44) offset += 1;
    }
    return entry;
  }

  /**
   * Decodes the segment at `at` into `state` (generated column, source index, original line, original column: each
   * field adds its delta; then the number of fields); returns the offset after it.
   */
  #decode(at, state) {
    const text = this.#mappings;
    let count = 0;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code === 44 || code === 59) break;
      let value = 0;
      let shift = 0;
      for (;;) {
        const digit = BASE64_VALUE[text.charCodeAt(at)];
        at += 1;
        value += (digit & 31) * 2 ** shift;
        shift += 5;
        if ((digit & 32) === 0) break;
      }
      if (count < 4) state[count] += value % 2 === 1 ? -(value - 1) / 2 : value / 2;
      count += 1;
    }
    state[4] = count;
    return at;
  }
}
