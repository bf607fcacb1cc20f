/**
 * Rows of node-postgres's results as the same objects, for less CPU. For every query, pg 8 builds a template row: an
 * `Object.create(null)` object (which V8 keeps in dictionary mode) given each column by its computed name, then spread
 * into a plain object; each row is then a spread of the template, its columns stored again by name. In a profile of
 * the server on PostgreSQL (bench/native-profile.ts), making the templates took 67 us of the 1,035 sampled per API
 * call (38 of them in the spread, V8's slow path CloneObjectIC_Slow), and making the rows 14. Here a function made
 * once per list of column names (row-maker.ts) makes each row with one object literal from its parsed values.
 * (docs/benchmarks-reading.md, thirty-third session.)
 *
 * It replaces two methods of pg's Result on the copy of pg that openDatabase loads; they keep pg's contract:
 * `addFields` sets `fields` and `_parsers` from a RowDescription, `parseRow` turns a DataRow's values into the row.
 */
import type Pg from 'pg';
import { rowMaker, type MakeRow } from './row-maker';

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}

/** The members of pg's Result that the two methods use. */
interface ResultInternals {
  fields: FieldDescription[];
  _parsers: ((value: string) => unknown)[] | undefined;
  _types: { getTypeParser(oid: number, format?: string): (value: string) => unknown } | undefined;
  /** Added here: the row maker of this result's columns, or undefined where pg's own way is kept. */
  _makeRow?: MakeRow | undefined;
}

const MAKERS_KEPT = 512;

/** Row makers by the column names they make, joined: a server has a bounded set of statements. */
const makers = new Map<string, MakeRow | null>();

function makerFor(fields: readonly FieldDescription[]): MakeRow | undefined {
  // Binary columns (pg copies their buffers) and unusual names keep pg's own rows.
  if (fields.some((field) => field.format === 'binary')) return undefined;
  const names = fields.map((field) => field.name);
  const key = names.join('\u0000');
  let make = makers.get(key);
  if (make === undefined) {
    make = rowMaker(names) ?? null;
    // A runaway set of ad-hoc column lists should not grow the map without bound; the oldest make way.
    if (makers.size >= MAKERS_KEPT) makers.delete(makers.keys().next().value as string);
    makers.set(key, make);
  }
  return make ?? undefined;
}

const installed = new WeakSet<object>();

/** Has pg's results make their rows with row makers (once per copy of pg). */
export function useFastRowObjects(pg: typeof Pg): void {
  const prototype = (pg as unknown as { Result?: { prototype?: Record<string, unknown> } }).Result?.prototype;
  // A pg that exports no Result, or whose Result lacks either method, keeps its own rows (the test then fails).
  if (prototype === undefined || installed.has(prototype)) return;
  if (typeof prototype['addFields'] !== 'function' || typeof prototype['parseRow'] !== 'function') return;
  installed.add(prototype);
  const addFields = prototype['addFields'] as (this: ResultInternals, fields: FieldDescription[]) => void;
  const parseRow = prototype['parseRow'] as (this: ResultInternals, values: (string | null)[]) => unknown;
  prototype['addFields'] = function (this: ResultInternals, fields: FieldDescription[]): void {
    const make = makerFor(fields);
    this._makeRow = make;
    if (make === undefined) {
      addFields.call(this, fields);
      return;
    }
    this.fields = fields;
    const parsers = new Array<(value: string) => unknown>(fields.length);
    const types = this._types ?? pg.types;
    for (let i = 0; i < fields.length; i += 1) {
      const field = fields[i] as FieldDescription;
      parsers[i] = types.getTypeParser(field.dataTypeID, (field.format ?? 'text') as 'text') as (value: string) => unknown;
    }
    if (fields.length > 0) this._parsers = parsers;
  };
  prototype['parseRow'] = function (this: ResultInternals, values: (string | null)[]): unknown {
    const make = this._makeRow;
    if (make === undefined) return parseRow.call(this, values);
    const parsers = this._parsers as ((value: string) => unknown)[];
    const parsed = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i += 1) {
      const value = values[i];
      parsed[i] = value === null ? null : (parsers[i] as (raw: string) => unknown)(value as string);
    }
    return make(parsed);
  };
}
