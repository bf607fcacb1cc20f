/**
 * Rows of a reading SQLite statement as the objects better-sqlite3 makes, for less CPU. On Node 20 its addon builds
 * each row object a column at a time through V8's API, internalizing every column name again for every row (its
 * build for Node 22 and later makes the object in one call). In raw mode it returns each row as an array instead,
 * and a function made once per statement turns that into the object with one object literal: a payment's row of 43
 * columns took 11 us the addon's way and 7 us this way, outside the server (docs/benchmarks-reading.md, twenty-fifth
 * session).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';
import { rowMaker, type MakeRow } from './row-maker';

/** Per statement: how to make its rows, or null where the addon's own objects are kept (rowMaker). */
const rowMakers = new WeakMap<object, MakeRow | null>();

/** The row maker of a reading statement, switching it to raw mode the first time; null keeps the addon's objects. */
function makerOf(statement: SqliteStatement): MakeRow | null {
  let make = rowMakers.get(statement);
  if (make === undefined) {
    const native = statement as unknown as Statement;
    make = rowMaker(native.columns().map((column) => column.name)) ?? null;
    if (make !== null) native.raw(true);
    rowMakers.set(statement, make);
  }
  return make;
}

/** Every row of a reading statement (`statement.reader`), as objects. */
export function allRowObjects(statement: SqliteStatement, parameters: readonly unknown[]): unknown[] {
  const make = makerOf(statement);
  const rows = statement.all(parameters) as unknown[];
  if (make !== null) for (let i = 0; i < rows.length; i += 1) rows[i] = make(rows[i] as unknown[]);
  return rows;
}

/** The rows of a reading statement one at a time, as objects. */
export function* iterateRowObjects(statement: SqliteStatement, parameters: readonly unknown[]): IterableIterator<unknown> {
  const make = makerOf(statement);
  for (const row of statement.iterate(parameters)) yield make === null ? row : make(row as unknown[]);
}
