import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const SCRIPT = join(import.meta.dirname, 'runtime-releases.mjs');

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, out: result.stdout + result.stderr };
}

/** A dist with a built runtime of `bytes`, and an empty archive beside it. */
function setup(bytes: string) {
  const root = mkdtempSync(join(tmpdir(), 'rail-releases-'));
  const dist = join(root, 'dist');
  mkdirSync(join(dist, 'runtime'), { recursive: true });
  writeFileSync(join(dist, 'runtime', 'rail.js'), bytes);
  return { dist, archive: join(root, 'archive') };
}

function digest(bytes: string) {
  const sha = createHash('sha384').update(bytes).digest();
  return { hash: sha.subarray(0, 8).toString('hex'), integrity: `sha384-${sha.toString('base64')}` };
}

describe('scripts/runtime-releases.mjs', () => {
  test('add archives the build once, with its hash, integrity and date; a second add of the same bytes adds nothing', () => {
    const { dist, archive } = setup('window.Rail=1');
    const first = run(['add', dist, archive], { RAIL_RELEASE_DATE: '2026-11-25' });
    expect(first.status).toBe(0);
    const { hash, integrity } = digest('window.Rail=1');
    expect(first.out).toContain(`| 2026-11-25 | \`rail.${hash}.js\` | \`${integrity}\` |`);
    expect(JSON.parse(readFileSync(join(archive, 'index.json'), 'utf8'))).toEqual([{ hash, integrity, released: '2026-11-25' }]);
    expect(readFileSync(join(archive, `rail.${hash}.js`), 'utf8')).toBe('window.Rail=1');
    const again = run(['add', dist, archive], { RAIL_RELEASE_DATE: '2026-11-26' });
    expect(again.status).toBe(0);
    expect(again.out).toContain('already a release');
    expect(JSON.parse(readFileSync(join(archive, 'index.json'), 'utf8'))).toHaveLength(1);
  });

  test('a new build is appended after the older releases; stage copies them all into dist', () => {
    const { dist, archive } = setup('window.Rail=1');
    run(['add', dist, archive], { RAIL_RELEASE_DATE: '2026-11-01' });
    writeFileSync(join(dist, 'runtime', 'rail.js'), 'window.Rail=2');
    run(['add', dist, archive], { RAIL_RELEASE_DATE: '2026-11-25' });
    const staged = run(['stage', dist, archive]);
    expect(staged.status).toBe(0);
    const index = JSON.parse(readFileSync(join(dist, 'runtime', 'releases', 'index.json'), 'utf8')) as { hash: string; released: string }[];
    expect(index.map((entry) => [entry.hash, entry.released])).toEqual([
      [digest('window.Rail=1').hash, '2026-11-01'],
      [digest('window.Rail=2').hash, '2026-11-25'],
    ]);
    for (const { hash } of index) expect(existsSync(join(dist, 'runtime', 'releases', `rail.${hash}.js`))).toBe(true);
  });

  test('a tampered archive fails the build (stage) and names the release', () => {
    const { dist, archive } = setup('window.Rail=1');
    run(['add', dist, archive], { RAIL_RELEASE_DATE: '2026-11-01' });
    const { hash } = digest('window.Rail=1');
    writeFileSync(join(archive, `rail.${hash}.js`), 'window.Rail=666');
    const staged = run(['stage', dist, archive]);
    expect(staged.status).not.toBe(0);
    expect(staged.out).toContain(`runtime release ${hash}`);
  });

  test('an empty archive stages an empty index', () => {
    const { dist, archive } = setup('window.Rail=1');
    expect(run(['stage', dist, archive]).status).toBe(0);
    expect(JSON.parse(readFileSync(join(dist, 'runtime', 'releases', 'index.json'), 'utf8'))).toEqual([]);
  });

  test('the repository archive matches its files and the releases table of docs/runtime.md', () => {
    const root = join(import.meta.dirname, '..');
    const index = JSON.parse(readFileSync(join(root, 'runtime', 'releases', 'index.json'), 'utf8')) as { hash: string; integrity: string; released: string }[];
    expect(index.length).toBeGreaterThan(0);
    const docs = readFileSync(join(root, 'docs', 'runtime.md'), 'utf8');
    for (const entry of index) {
      expect(digest(readFileSync(join(root, 'runtime', 'releases', `rail.${entry.hash}.js`), 'utf8'))).toEqual({ hash: entry.hash, integrity: entry.integrity });
      expect(docs).toContain(`| ${entry.released} | \`rail.${entry.hash}.js\` | \`${entry.integrity}\` |`);
    }
  });
});
