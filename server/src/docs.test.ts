import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLIENT_ERROR_CATALOG } from '../../protocol/client-errors';
import { ERROR_CATALOG, ERROR_CODES } from '../../protocol/errors';

const errorsDoc = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
const rows = new Map(
  errorsDoc
    .split('\n')
    .map((line) => /^\| (ERR_\d{4}) \| (\d{3}) \| ([a-z_]+) \| (.+) \|$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[1], { status: Number(match[2]), type: match[3], when: match[4] }]),
);

describe('docs/errors.md', () => {
  test.each(ERROR_CODES)('has a row for %s with its status and type', (code) => {
    expect(rows.get(code)).toMatchObject({ status: ERROR_CATALOG[code].status, type: ERROR_CATALOG[code].type });
  });

  test('documents no code the catalog lacks', () => {
    for (const code of rows.keys()) expect(ERROR_CODES).toContain(code);
  });
});

describe('docs/open-points.md', () => {
  test('chooses a status for each error code the spec leaves without one', () => {
    const openPoints = readFileSync(resolve(import.meta.dirname, '../../docs/open-points.md'), 'utf8');
    for (const code of ['ERR_2001', 'ERR_2029', 'ERR_4094', 'ERR_4088'] as const) {
      expect(openPoints).toContain(`${code} answers ${ERROR_CATALOG[code].status}`);
    }
  });
});

describe('docs/errors.md, runtime codes', () => {
  test.each(Object.entries(CLIENT_ERROR_CATALOG))('has a row for %s with its type', (code, entry) => {
    expect(errorsDoc).toContain(`| ${code} | ${entry.type} | ${entry.when} |`);
  });
});

describe('docs/operations.md, the production command', () => {
  /** The environment assignments and node flags of a command line, in order. */
  const settings = (command: string) => command.split(/\s+/).filter((word) => /^[A-Z_]+=\S+$/.test(word) || word.startsWith('--'));

  test('npm start runs the server with the settings the documented command gives production', () => {
    const operations = readFileSync(resolve(import.meta.dirname, '../../docs/operations.md'), 'utf8');
    const documented = /^(\S+=\S+ .*node .*dist\/server\/main\.js)$/m.exec(operations)?.[1];
    expect(documented).toBeDefined();
    const start = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start']!;
    expect(settings(start.slice(start.indexOf('&&') + 2))).toEqual(settings(documented!));
    expect(settings(documented!)).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=131072', 'MALLOC_TRIM_THRESHOLD_=4194304', '--max-semi-space-size=8']));
  });
});
