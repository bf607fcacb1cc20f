// Builds @rail/server into dist/: the library (index.js) and the CLI compiled by esbuild with the server sources and
// their pure-JavaScript npm dependencies bundled in (the repository's scripts/build-server.mjs says which stay
// imports, and why: start-up time). The CLI is a CommonJS bundle (cli.cjs) that its entry, cli.js, runs with a V8
// code cache, as dist/server/main.js runs the server (scripts/bundle-launcher.mjs). The runtime, frame and demo
// page are copied to dist/assets/ (run the repository's `npm run build` first: it builds them, then this);
// declarations come from src/types.ts. Usage: node build.mjs
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildLaunchedBundle, SERVER_ESM_OPTIONS } from '../../scripts/build-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, '..', '..');
const out = join(here, 'dist');
const started = performance.now();

for (const built of ['dist/runtime/rail.js', 'dist/frame/index.html']) {
  if (!existsSync(join(repository, built))) throw new Error(`@rail/server: ${built} is missing; run npm run build in the repository`);
}
rmSync(out, { recursive: true, force: true });
await build({ ...SERVER_ESM_OPTIONS, entryPoints: [join(here, 'src/index.ts')], outfile: join(out, 'index.js') });
await buildLaunchedBundle({
  entry: join(here, 'src/cli.ts'),
  bundleFile: join(out, 'cli.cjs'),
  launcherFile: join(out, 'cli.js'),
  banner: '#!/usr/bin/env node',
});
mkdirSync(join(out, 'assets', 'demo'), { recursive: true });
cpSync(join(repository, 'dist', 'runtime'), join(out, 'assets', 'runtime'), { recursive: true });
cpSync(join(repository, 'dist', 'frame'), join(out, 'assets', 'frame'), { recursive: true });
cpSync(join(repository, 'demo', 'index.html'), join(out, 'assets', 'demo', 'index.html'));

// Declarations: the self-contained public types, and the entry that names them.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
writeFileSync(
  join(out, 'index.d.ts'),
  [
    "import type { StartRail } from './types.js';",
    "export type { RunningRail, StartRail, StartRailOptions } from './types.js';",
    '/** Starts a Rail test server and resolves once it answers. */',
    'export declare const startRail: StartRail;',
    '/** The account startRail() uses by default: every simulated rail on in test mode. */',
    "export { DEFAULT_TEST_ACCOUNT } from './default-account.js';",
    '',
  ].join('\n'),
);
console.log(`@rail/server built in ${Math.round(performance.now() - started)} ms`);
