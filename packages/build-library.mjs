// Builds a library package of packages/ (run in its folder by its `npm run build`): src/index.ts(x) bundled by
// esbuild into dist/index.js as one ES module, every npm dependency left as an import; declarations by tsc from the
// package's tsconfig.build.json (the package's own sources only, its @rail dependencies read from their dist/).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = process.cwd();
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const entry = ['src/index.ts', 'src/index.tsx'].map((file) => join(here, file)).find((file) => existsSync(file));
const started = performance.now();
rmSync(join(here, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: [entry],
  outfile: join(here, 'dist/index.js'),
  bundle: true,
  format: 'esm',
  platform: pkg.railPlatform ?? 'node',
  target: pkg.railPlatform === 'browser' ? ['chrome111', 'edge111', 'firefox114', 'safari16.4'] : 'node20',
  packages: 'external',
  jsx: 'automatic',
  minify: pkg.railPlatform === 'browser',
  legalComments: 'none',
  logLevel: 'warning',
});
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
console.log(`${pkg.name} built in ${Math.round(performance.now() - started)} ms`);
