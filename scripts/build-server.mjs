// Compiles the server (server/src/main.ts and what it imports from server/ and protocol/) into one ES module,
// dist/server/main.js, with its npm dependencies left as imports. Production runs this file with plain node: no
// TypeScript transpiling at run time. Usage: node scripts/build-server.mjs
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildServer(outfile = join(root, 'dist/server/main.js')) {
  await build({
    entryPoints: [join(root, 'server/src/main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const outfile = await buildServer();
  console.log(`server built: ${outfile} in ${Math.round(performance.now() - started)} ms`);
}
