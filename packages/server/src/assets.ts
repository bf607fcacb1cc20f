/**
 * Where the built runtime, frame and demo page are: beside the compiled package (dist/assets/, copied by build.mjs)
 * or, running from this repository's sources, the repository's dist/ and demo/.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface AssetPaths {
  distDir: string;
  demoPagePaths: string[];
  /** The CLI to spawn for a child process, and the node arguments it needs. */
  cli: { args: string[]; cwd: string };
}

export function assetPaths(): AssetPaths {
  const here = dirname(fileURLToPath(import.meta.url));
  const packaged = join(here, 'assets');
  if (existsSync(join(packaged, 'runtime'))) {
    return { distDir: packaged, demoPagePaths: [join(packaged, 'demo', 'index.html')], cli: { args: [join(here, 'cli.js')], cwd: here } };
  }
  const repository = resolve(here, '..', '..', '..');
  return {
    distDir: join(repository, 'dist'),
    demoPagePaths: [join(repository, 'demo', 'index.html')],
    cli: { args: ['--import', 'tsx', join(here, 'cli.ts')], cwd: repository },
  };
}
