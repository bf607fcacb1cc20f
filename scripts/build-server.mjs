// Compiles the server (server/src/main.ts and what it imports from server/ and protocol/) into one ES module,
// dist/server/main.js. Production runs this file with plain node: no TypeScript transpiling at run time.
//
// Its pure-JavaScript npm dependencies (kysely, zod, hono, pino, ...) are bundled in: left as imports, a start
// opened some 560 files under node_modules (kysely alone 260; 20 now), the largest single part of the start-up
// time. Left as imports: better-sqlite3 (a native addon), and the packages a start does not need, which the
// server loads on first use (pg with DATABASE_URL, nodemailer with RAIL_SMTP_URL, busboy on the first upload).
// Usage: node scripts/build-server.mjs
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The esbuild options the server's bundles share (this script's dist/server/main.js and @rail/server's build). */
export const SERVER_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'nodemailer', 'busboy'],
  // Bundled CommonJS packages (pino, ...) call require() for Node's built-ins; an ES module has none of its own.
  banner: { js: "import { createRequire as __railCreateRequire } from 'node:module'; const require = __railCreateRequire(import.meta.url);" },
  // Fewer bytes to parse at start; names are kept (stack traces stay readable, and the source map maps them back).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};

export async function buildServer(outfile = join(root, 'dist/server/main.js')) {
  await build({ ...SERVER_BUNDLE_OPTIONS, entryPoints: [join(root, 'server/src/main.ts')], outfile });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const outfile = await buildServer();
  console.log(`server built: ${outfile} in ${Math.round(performance.now() - started)} ms`);
}
