import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { versionProblems, workspacePackages } from './check-packages.mjs';

describe('package versions are kept in step', () => {
  test('every workspace package is at the repository version and names its @rail dependencies at exactly it', () => {
    expect(workspacePackages().map((pkg) => pkg.json.name)).toEqual(['@rail/loader', '@rail/server', '@rail/playwright', '@rail/vite', '@rail/react']);
    expect(versionProblems()).toEqual([]);
  });

  test('a package ahead of the others, or a range on a sibling, is reported', () => {
    const root = mkdtempSync(join(tmpdir(), 'rail-versions-'));
    try {
      for (const dir of ['loader', 'packages/server', 'packages/playwright', 'packages/vite', 'packages/react']) {
        cpSync(join(import.meta.dirname, '..', dir, 'package.json'), join(root, dir, 'package.json'));
      }
      cpSync(join(import.meta.dirname, '..', 'package.json'), join(root, 'package.json'));
      const vitePath = join(root, 'packages/vite/package.json');
      const vite = JSON.parse(readFileSync(vitePath, 'utf8'));
      vite.version = '9.9.9';
      vite.dependencies['@rail/server'] = '^0.1.0';
      writeFileSync(vitePath, JSON.stringify(vite));
      const problems = versionProblems(root);
      expect(problems).toHaveLength(2);
      expect(problems[0]).toContain('@rail/vite (packages/vite) is at 9.9.9');
      expect(problems[1]).toContain('names @rail/server@^0.1.0 in dependencies');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
