import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { fileTrees } from './file-trees';

const SCRIPT = join(import.meta.dirname, 'check-object-shapes.mjs');
const { tree, removeAll } = fileTrees('rail-shapes-');

function check(root?: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, root === undefined ? [SCRIPT] : [SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const RECORD = 'interface Attempt { id: string; status: string; amount: number }\n';

afterEach(removeAll);

describe('scripts/check-object-shapes.mjs', () => {
  test('fails on a literal in a function that begins with a spread and adds a key, naming the file, line and key', () => {
    const root = tree({
      'server/src/storage/attempts.ts': `${RECORD}export function opened(attempt: Attempt) {\n  return { ...attempt, attemptNumber: 1 };\n}\n`,
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain('server/src/storage/attempts.ts:3: begins with a spread and adds attemptNumber');
  });

  test('counts the keys a later spread adds, and a computed key that is not one of the spread', () => {
    const root = tree({
      'server/src/core/view.ts':
        `${RECORD}export function view(a: Attempt, extra: { note: string }, key: string) {\n` +
        '  const one = { ...a, ...extra };\n  const two = { ...a, [key]: 1 };\n  return [one, two];\n}\n',
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toContain('server/src/core/view.ts:3: begins with a spread and adds note');
    expect(output).toContain('server/src/core/view.ts:4: begins with a spread and adds [key]');
  });

  test('passes keys written first, overrides of the spread keys, request JSON, the top level, and literals marked once per start', () => {
    const root = tree({
      'server/src/core/fine.ts':
        RECORD +
        'const AT_LOAD = { ...{ a: 1 }, b: 2 };\n' +
        'export function fine(a: Attempt, json: Record<string, unknown>, status: "status" | "amount") {\n' +
        '  const first = { attemptNumber: 1, ...a };\n' +
        '  const override = { ...a, status: "done", [status]: 2 };\n' +
        '  const merged = { ...json, feature_metadata: null };\n' +
        '  // object-shapes: once per start\n' +
        '  const once = { ...a, startedAt: 0 };\n' +
        '  return [AT_LOAD, first, override, merged, once];\n' +
        '}\n',
      'server/src/core/fine.test.ts': `${RECORD}export const inTest = (a: Attempt) => ({ ...a, extra: 1 });\n`,
    });
    const { status, output } = check(root);
    expect(output).toContain('object shapes: ok');
    expect(status).toBe(0);
  });

  // It parses the whole repository in a child process: on two busy cores that took longer than the default 30 s.
  test('this repository passes', { timeout: 180_000 }, () => {
    const { status, output } = check();
    expect(output).toContain('object shapes: ok');
    expect(status).toBe(0);
  });
});
