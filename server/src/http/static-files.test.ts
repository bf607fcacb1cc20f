import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { CachedFile, loadedOnce } from './static-files';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rail-static-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('CachedFile', () => {
  test('callers during the load share it: one read, one hash, one compression, the same served file', async () => {
    const path = join(tempDir(), 'index.html');
    writeFileSync(path, '<!doctype html><meta name="x" content="__X__">');
    const file = new CachedFile([path], { __X__: 'https://api.example.com' });
    const [first, second] = await Promise.all([file.get(), file.get()]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(await file.get()).toBe(first);
    expect(new TextDecoder().decode(first!.body)).toContain('content="https://api.example.com"');
  });

  test('a file that is not there yet is looked for again on the next call', async () => {
    const path = join(tempDir(), 'rail.js');
    const file = new CachedFile([path]);
    expect(await file.get()).toBeUndefined();
    writeFileSync(path, 'window.Rail=function(){};');
    const loaded = await file.get();
    expect(new TextDecoder().decode(loaded!.body)).toBe('window.Rail=function(){};');
  });
});

describe('loadedOnce', () => {
  test('runs the load once for concurrent callers, keeps its value, and runs it again after a failure or nothing', async () => {
    const answers: (() => number | undefined)[] = [
      () => {
        throw new Error('not yet');
      },
      () => undefined,
      () => 7,
    ];
    let runs = 0;
    const get = loadedOnce(async () => {
      const answer = answers[runs]!;
      runs += 1;
      return answer();
    });
    const failed = await Promise.allSettled([get(), get()]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(runs).toBe(1);
    expect(await get()).toBeUndefined();
    expect(await Promise.all([get(), get()])).toEqual([7, 7]);
    expect(await get()).toBe(7);
    expect(runs).toBe(3);
  });
});
