// Compiles the server (server/src/main.ts and what it imports from server/ and protocol/) into
// dist/server/server.cjs, and its entry dist/server/main.js, which runs that bundle with a V8 code cache
// (scripts/bundle-launcher.mjs says how, and why a CommonJS bundle). Production runs dist/server/main.js with plain
// node: no TypeScript transpiling at run time.
//
// Its pure-JavaScript npm dependencies (kysely, zod, hono, pino, ...) are bundled in: left as imports, a start
// opened some 560 files under node_modules (kysely alone 260; 20 now), the largest single part of the start-up
// time. Left as imports: the packages a start does not need, which the server loads on first use (nodemailer with
// RAIL_SMTP_URL, busboy on the first upload). better-sqlite3's JavaScript is bundled and its native addon loaded from
// node_modules (lazyBundledDatabaseDrivers below).
//
// pg and better-sqlite3 are bundled too, behind the lazy requires of storage/database.ts (lazyBundledDatabaseDrivers
// below): a start on PostgreSQL runs pg from the code-cached bundle (1-3 ms) instead of resolving, reading and
// compiling its 32 files from node_modules (11-16 ms inside the server), and never runs better-sqlite3; a start on
// SQLite runs better-sqlite3's 13 files from the bundle the same way, and never runs pg. pg's optional peers stay imports:
// pg-native (loaded only through pg.native, which Rail does not use) and pg-cloudflare (Cloudflare Workers only).
// Usage: node scripts/build-server.mjs
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The expressions storage/database.ts loads pg and better-sqlite3 with, in the sources (an ES module's own require of
 * node_modules).
 */
const LAZY_REQUIRES_IN_SOURCE = ["createRequire(import.meta.url)('pg')", "createRequire(import.meta.url)('better-sqlite3')"];

/**
 * Gives esbuild the lazy requires of pg and better-sqlite3 in storage/database.ts as plain `require(...)`, which it
 * bundles (their modules become a function the bundle calls on first use: nothing of them runs before). The sources
 * keep createRequire, which vitest and tsx run as ES modules; the build fails if an expression is no longer there, so
 * neither can silently go back to node_modules, or be loaded at start. better-sqlite3's native addon is not bundled:
 * database.ts hands its path to better-sqlite3 (`nativeBinding`), which loads it from node_modules.
 */
const lazyBundledDatabaseDrivers = {
  name: 'lazy-bundled-database-drivers',
  setup(build) {
    build.onLoad({ filter: /[\\/]server[\\/]src[\\/]storage[\\/]database\.ts$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const expression of LAZY_REQUIRES_IN_SOURCE) {
        if (source.split(expression).length !== 2) throw new Error(`${args.path}: expected ${expression} once (build-server.mjs bundles it)`);
        source = source.replace(expression, `require(${expression.slice(expression.indexOf(")(") + 2, -1)})`);
      }
      return { contents: source, loader: 'ts' };
    });
  },
};

/** The esbuild options the server's bundles share (dist/server/server.cjs and @rail/server's builds). */
export const SERVER_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['pg-native', 'pg-cloudflare', 'nodemailer', 'busboy'],
  plugins: [lazyBundledDatabaseDrivers],
  // Fewer bytes to read at start; names are kept (stack traces stay readable, and the source map maps them back).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * A CommonJS bundle for the launcher, written as the function expression Node would wrap a module in (the launcher
 * compiles the file as it is, with no wrapped copy of its 1.6 MB), in strict mode as the ES modules it is made of
 * are; the sources' import.meta.url is its own file URL.
 */
export const SERVER_CJS_OPTIONS = {
  ...SERVER_BUNDLE_OPTIONS,
  format: 'cjs',
  define: { 'import.meta.url': '__railBundleUrl' },
  banner: { js: "(function (exports, require, module, __filename, __dirname) {'use strict';const __railBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '})' },
};

/** An ES module (the embeddable package's library entry): bundled CommonJS packages get a require() of their own. */
export const SERVER_ESM_OPTIONS = {
  ...SERVER_BUNDLE_OPTIONS,
  format: 'esm',
  banner: { js: "import { createRequire as __railCreateRequire } from 'node:module'; const require = __railCreateRequire(import.meta.url);" },
};

/**
 * Compiles `entry` into the CommonJS bundle `bundleFile` and writes `launcherFile`, the ES module that runs it
 * through bundle-launcher.mjs; code caches of earlier builds of the bundle are deleted.
 */
export async function buildLaunchedBundle({ entry, bundleFile, launcherFile, banner = '' }) {
  await build({ ...SERVER_CJS_OPTIONS, entryPoints: [entry], outfile: bundleFile });
  const hash = createHash('sha256').update(readFileSync(bundleFile)).digest('hex').slice(0, 16);
  const name = basename(bundleFile);
  for (const file of readdirSync(dirname(bundleFile))) if (file.startsWith(`${name}.`) && file.includes('.v8cache')) rmSync(join(dirname(bundleFile), file));
  await build({
    stdin: {
      contents: `import { runBundle } from './bundle-launcher.mjs';\nimport { fileURLToPath } from 'node:url';\nrunBundle(fileURLToPath(new URL(${JSON.stringify(`./${name}`)}, import.meta.url)), ${JSON.stringify(hash)});\n`,
      resolveDir: dirname(fileURLToPath(import.meta.url)),
      sourcefile: basename(launcherFile),
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: launcherFile,
    ...(banner ? { banner: { js: banner } } : {}),
    legalComments: 'none',
    logLevel: 'warning',
  });
}

export async function buildServer(outDir = join(root, 'dist/server')) {
  const launcherFile = join(outDir, 'main.js');
  rmSync(`${launcherFile}.map`, { force: true });
  await buildLaunchedBundle({ entry: join(root, 'server/src/main.ts'), bundleFile: join(outDir, 'server.cjs'), launcherFile });
  return launcherFile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const outfile = await buildServer();
  console.log(`server built: ${outfile} in ${Math.round(performance.now() - started)} ms`);
}
