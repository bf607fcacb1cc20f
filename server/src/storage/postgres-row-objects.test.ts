/**
 * pg's rows made by row makers (storage/postgres-row-objects.ts) are the rows pg makes. The oracle is pg's own array
 * rows of the same query (its own parsers, `rowMode: 'array'`, which the change leaves alone), read the way pg names
 * them: each name once, in the order of its first column, holding the value of its last.
 */
import { createRequire } from 'node:module';
import type Pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { onPostgres } from '../test-support/engines';
import { useFastRowObjects } from './postgres-row-objects';

const pg = createRequire(import.meta.url)('pg') as typeof Pg;
useFastRowObjects(pg);

type Row = Record<string, unknown>;

/** An own data property, even for a name such as `__proto__`; a property defined again keeps its place. */
const setOwn = (row: Row, name: string, value: unknown) => Object.defineProperty(row, name, { value, writable: true, enumerable: true, configurable: true });

/** What pg's object rows hold, from its array rows and field names. */
function expectedRows(fields: { name: string }[], arrays: unknown[][]): Row[] {
  return arrays.map((values) => {
    const row: Row = {};
    fields.forEach((field, index) => setOwn(row, field.name, values[index]));
    return row;
  });
}

/** Whether a result's rows came from a row maker (the member useFastRowObjects adds to pg's Result). */
const madeByRowMaker = (result: unknown) => typeof (result as { _makeRow?: unknown })._makeRow === 'function';

onPostgres('PostgreSQL rows from row makers', (database) => {
  let client: Pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: database().databaseUrl });
    await client.connect();
  });
  afterAll(() => client.end());

  async function compare(text: string, values: unknown[] = [], name?: string): Promise<Pg.QueryResult> {
    const result = await client.query({ text, values, ...(name ? { name } : {}) });
    const arrays = await client.query({ text, values, rowMode: 'array' });
    const expected = expectedRows(arrays.fields, arrays.rows as unknown[][]);
    expect(result.rows).toEqual(expected);
    for (const [index, row] of (result.rows as Row[]).entries()) {
      expect(Object.keys(row)).toEqual(Object.keys(expected[index] as Row));
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    }
    return result;
  }

  it('answers the values pg answers, of every type its parsers know, null included', async () => {
    const result = await compare(
      `select 1::int4 as a, 'x'::text as b, null::text as c, 9007199254740991::int8 as d, '{"k":[1,2]}'::jsonb as e,
        '2026-12-06T22:00:00Z'::timestamptz as f, true as g, 1.5::numeric as h, array[1, 2]::int4[] as i, $1::text as j`,
      ['a "quoted" value'],
    );
    expect(madeByRowMaker(result)).toBe(true);
    expect(result.rows[0]).toMatchObject({ a: 1, c: null, e: { k: [1, 2] }, g: true, i: [1, 2], j: 'a "quoted" value' });
    expect(result.rows[0].f).toEqual(new Date('2026-12-06T22:00:00Z'));
  });

  it('names a repeated column once, where it first came, with its last value', async () => {
    const result = await compare('select 1 as x, 2 as y, 3 as x');
    expect(result.rows).toEqual([{ x: 3, y: 2 }]);
    expect(Object.keys(result.rows[0] as Row)).toEqual(['x', 'y']);
  });

  it('answers several rows, no rows, and a named statement run again', async () => {
    await compare('select n, n * 2 as twice from generate_series(1, 5) as n');
    const none = await compare('select 1 as a where false');
    expect(none.rows).toEqual([]);
    for (let run = 0; run < 3; run += 1) {
      const result = await compare('select $1::int4 + n as sum from generate_series(1, 2) as n', [run], 'rail_row_objects_test');
      expect(result.rows).toEqual([{ sum: run + 1 }, { sum: run + 2 }]);
    }
  });

  it('leaves a __proto__ column to pg, so no row gets a prototype from its data', async () => {
    const result = await compare(`select 1 as id, '{}'::text as "__proto__"`);
    expect(madeByRowMaker(result)).toBe(false);
  });

  it('answers each statement of a multi-statement query its own rows', async () => {
    const results = (await client.query('select 1 as a, 2 as b; select 3 as c')) as unknown as Pg.QueryResult[];
    expect(results.map((result) => result.rows)).toEqual([[{ a: 1, b: 2 }], [{ c: 3 }]]);
    expect(results.every(madeByRowMaker)).toBe(true);
  });
});

it('leaves a pg alone that exports no Result, or whose Result lacks either method', () => {
  expect(() => useFastRowObjects({} as typeof Pg)).not.toThrow();
  const addFields = () => undefined;
  const prototype: Record<string, unknown> = { addFields };
  useFastRowObjects({ Result: { prototype } } as unknown as typeof Pg);
  expect(prototype).toEqual({ addFields });
});
