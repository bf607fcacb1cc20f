import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain JavaScript build script, without declarations
import { buildLaunchedBundle } from './build-server.mjs';
// @ts-expect-error: a plain JavaScript module, without declarations
import { MappingsIndex } from './bundle-launcher.mjs';

const dir = mkdtempSync(join(tmpdir(), 'rail-launcher-'));
const entry = join(dir, 'entry.ts');
const launcher = join(dir, 'out', 'main.js');
const caches = () => readdirSync(join(dir, 'out')).filter((file) => file.endsWith('.v8cache'));

/** Runs the launcher with `args`; its stdout. */
const run = (...args: string[]) => execFileSync(process.execPath, [launcher, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  writeFileSync(
    entry,
    [
      "import { readFileSync } from 'node:fs';",
      "import { fileURLToPath } from 'node:url';",
      'function failHere(): never {',
      "  throw new Error('from the bundle');",
      '}',
      "if (process.argv[2] === 'stay') setTimeout(() => console.log('left'), 1500);",
      "if (process.argv[2] === 'throw') {",
      '  try {',
      '    failHere();',
      '  } catch (error) {',
      '    console.log((error as Error).stack);',
      '  }',
      '} else {',
      '  const self = readFileSync(fileURLToPath(import.meta.url), "utf8");',
      "  console.log(self.includes('from the bundle') ? 'ran from its own file' : 'import.meta.url is not the bundle');",
      '}',
      '',
    ].join('\n'),
  );
  await buildLaunchedBundle({ entry, bundleFile: join(dir, 'out', 'bundle.cjs'), launcherFile: launcher });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle-launcher', () => {
  test('runs the bundle with import.meta.url naming the bundle, and writes the code cache once', () => {
    expect(caches()).toEqual([]);
    expect(run()).toBe('ran from its own file\n');
    const written = caches();
    expect(written).toHaveLength(1);
    expect(written[0]).toContain(`${process.version}-${process.arch}`);
    expect(run()).toBe('ran from its own file\n');
    expect(caches()).toEqual(written);
  });

  test('sets the start flags before the bundle runs, the evaluation flags while it runs, and the server V8 flags a second after the launch', () => {
    // Records each v8.setFlagsFromString call on stdout (syncBuiltinESMExports hands the launcher's ES import the spy).
    const spy = join(dir, 'flags-spy.cjs');
    writeFileSync(
      spy,
      "const v8 = require('node:v8'); const set = v8.setFlagsFromString; v8.setFlagsFromString = (flags) => { process.stdout.write(`v8 flags: ${flags}\\n`); set(flags); }; require('node:module').syncBuiltinESMExports();\n",
    );
    // A process that ends within the second never sets the server flags; one that runs on sets them once, after its
    // start. Pretenuring is off before the bundle is compiled, on while its top level runs, and off again when it
    // returns: before anything the bundle scheduled (its timer) runs.
    // The old generation's growth factor of 2 is set with them, and kept until the server flags' 1.45.
    const evaluated = [
      'v8 flags: --no-allocation-site-pretenuring',
      'v8 flags: --heap-growing-percent=100',
      'v8 flags: --allocation-site-pretenuring',
      'ran from its own file',
      'v8 flags: --no-allocation-site-pretenuring',
      'v8 flags: --heap-growing-percent=100',
    ].join('\n');
    expect(execFileSync(process.execPath, ['-r', spy, launcher], { encoding: 'utf8' })).toBe(`${evaluated}\n`);
    expect(execFileSync(process.execPath, ['-r', spy, launcher, 'stay'], { encoding: 'utf8' })).toBe(`${evaluated}\nv8 flags: --heap-growing-percent=45\nleft\n`);
  });

  test('a process that ran long enough to set the V8 flags leaves a code cache the next start accepts', () => {
    for (const file of caches()) rmSync(join(dir, 'out', file));
    run('stay');
    const [cache] = caches();
    const written = statSync(join(dir, 'out', cache!)).mtimeMs;
    // A cache V8 rejects is written again: the next process that stays would replace it.
    run('stay');
    expect(caches()).toEqual([cache]);
    expect(statSync(join(dir, 'out', cache!)).mtimeMs).toBe(written);
  });

  test("maps the bundle's frames to the sources through the source map", () => {
    const stack = run('throw');
    expect(stack).toMatch(/^Error: from the bundle\n {4}at failHere \(.*entry\.ts:4:9\)/);
  });

  test('MappingsIndex finds the entry node:module SourceMap finds, at every position of the bundle', () => {
    const bundle = join(dir, 'out', 'bundle.cjs');
    const payload = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as SourceMapPayload;
    const reference = new SourceMap(payload);
    const lines = readFileSync(bundle, 'utf8').split('\n');
    // Checkpoints at every segment, every second and third, and the default: lookups start from each kind of place.
    for (const segmentsPerCheckpoint of [1, 2, 3, undefined]) {
      const index = new MappingsIndex(payload.mappings, payload.sources, segmentsPerCheckpoint);
      let mapped = 0;
      for (let line = 0; line <= lines.length + 1; line += 1) {
        for (let column = 0; column <= (lines[line]?.length ?? 3) + 2; column += 1) {
          const expected = reference.findEntry(line, column) as { originalSource?: string; originalLine?: number; originalColumn?: number };
          const entry = index.findEntry(line, column) as typeof expected;
          expect([line, column, entry.originalSource, entry.originalLine, entry.originalColumn]).toEqual([line, column, expected.originalSource, expected.originalLine, expected.originalColumn]);
          if (entry.originalSource !== undefined) mapped += 1;
        }
      }
      expect(mapped).toBeGreaterThan(100);
    }
  });

  test('a rebuild deletes the caches of the previous bundle', async () => {
    run();
    expect(caches()).toHaveLength(1);
    writeFileSync(entry, "console.log('rebuilt');\n");
    await buildLaunchedBundle({ entry, bundleFile: join(dir, 'out', 'bundle.cjs'), launcherFile: launcher });
    expect(caches()).toEqual([]);
    expect(run()).toBe('rebuilt\n');
  });
});
