import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Temporary trees of files for the tests of the repository's checks (check-layers, check-object-shapes): `tree`
 * writes one from path -> source under a new directory named `prefix`..., `removeAll` deletes every tree made so far.
 */
export function fileTrees(prefix: string): { tree(files: Record<string, string>): string; removeAll(): void } {
  const roots: string[] = [];
  return {
    tree(files) {
      const root = mkdtempSync(join(tmpdir(), prefix));
      roots.push(root);
      for (const [path, source] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), source);
      }
      return root;
    },
    removeAll() {
      for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
    },
  };
}
