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
// source map is read on the first stack trace that has such a frame, never at start (keeping the 4 MB map parsed
// costs some 18 MB of memory).
//
// The server process also gets a fixed growth factor for V8's old generation (SERVER_V8_FLAGS).
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire, SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * V8 flags the launched server runs with, set at run time so that every way of starting it (node dist/server/main.js,
 * `rail start`, npm start) gets them without flags on its command line. Under load, V8 lets the old generation grow
 * to up to 4 times what survived the last full collection before it collects again (a factor it picks from the
 * collection's speed): the server keeps some 15 MB alive, and its old space stood at 23-46 MB after 10 s of load,
 * the rest objects promoted out of the young generation that died there. A factor of 1.3 holds it at about 24 MB,
 * for a full collection every second or so under load (10-20 ms of main-thread time each, most of the marking
 * concurrent). Read at each collection, so setting it after start works (unlike the young generation's size, which
 * only a command-line flag sets).
 */
export const SERVER_V8_FLAGS = ['--heap-growing-percent=30'];

/** How long after start the cache is written when the process is still running then. */
const CACHE_WRITE_DELAY_MS = 1000;

/**
 * Runs the bundle at `bundlePath` (built with content hash `bundleHash`) as a CommonJS module of its own directory.
 * @returns the bundle's module.exports
 */
export function runBundle(bundlePath, bundleHash) {
  for (const flag of SERVER_V8_FLAGS) setFlagsFromString(flag);
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
  if (cachedData === undefined || script.cachedDataRejected) scheduleCacheWrite(script, cachePath);
  mapStackTraces(bundlePath);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return module.exports;
}

function scheduleCacheWrite(script, cachePath) {
  let written = false;
  const write = () => {
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
  setTimeout(write, CACHE_WRITE_DELAY_MS).unref();
  process.once('exit', write);
}

/** Formats stack traces as V8 does, with the bundle's frames at their place in the sources. */
function mapStackTraces(bundlePath) {
  let sourceMap;
  const load = () => {
    if (sourceMap === undefined) {
      try {
        const payload = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8'));
        payload.sources = payload.sources.map((source) => resolve(dirname(bundlePath), source));
        sourceMap = new SourceMap(payload);
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
