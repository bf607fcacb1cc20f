import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import { directRunnerOf } from './direct-statements';
import { keepPrepared } from './prepared-statements';
import type { Db } from './sql-rows';

/** Where one call's value goes in a query compiled once (compiledOnce). */
class Slot {
  constructor(readonly name: string) {}
}

interface Compiled {
  query: CompiledQuery;
  /** Per parameter of `query`: the name of the value that fills it, or undefined for a constant of the query. */
  slots: (string | undefined)[];
}

/**
 * A statement compiled once per shape and SQL dialect, then executed with each call's values. Kysely builds and
 * compiles a query on every call (an operation-node tree, frozen, then walked into SQL), which for the statements
 * of a payment cost about as much CPU as SQLite running them. `build(db, value, values)` writes the query with
 * `value('name')` wherever a call's value goes; compiled once with a placeholder in each, it gives the SQL and
 * which parameter each value fills. What changes the SQL (the columns a patch sets, the length of an `in` list) is
 * the `shape` the caller names, and `build` may read `values` only for that.
 *
 * Kysely leaves out a column whose value is undefined (an insert's or an update's), so a call with an undefined
 * value is built and compiled as before, and the statement is the one Kysely would have run.
 *
 * The cache is per dialect adapter: a `db` changed by withSchema() or withPlugin() shares its adapter but writes
 * other SQL, so such a `db` must not be passed here (none is in server/src).
 */
export function compiledOnce<Values extends Record<string, unknown>>(
  build: (db: Db, value: (name: keyof Values & string) => never, values: Values) => Compilable<unknown>,
): <Row>(db: Db, values: Values, shape?: string) => Promise<QueryResult<Row>> {
  const byDialect = new WeakMap<object, Map<string, Compiled>>();
  return async <Row>(db: Db, values: Values, shape = '') => {
    for (const name in values) {
      if (values[name] === undefined) return db.executeQuery<Row>(build(db, ((key: string) => values[key]) as (name: string) => never, values) as Compilable<Row>);
    }
    const adapter = db.getExecutor().adapter;
    let shapes = byDialect.get(adapter);
    if (shapes === undefined) {
      shapes = new Map();
      byDialect.set(adapter, shapes);
    }
    let compiled = shapes.get(shape);
    if (compiled === undefined) {
      const query = build(db, ((name: string) => new Slot(name)) as (name: string) => never, values).compile();
      compiled = { query, slots: query.parameters.map((parameter) => (parameter instanceof Slot ? parameter.name : undefined)) };
      keepPrepared(query.sql);
      shapes.set(shape, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((name, index) => (name === undefined ? query.parameters[index] : values[name]));
    const filled = { ...query, parameters };
    const direct = directRunnerOf(adapter)?.(filled, db.isTransaction) as Promise<QueryResult<Row>> | undefined;
    return direct ?? db.executeQuery<Row>(filled);
  };
}

/**
 * The placeholders of the values named `<prefix>:<name>`, by name: how a statement compiled once takes a group of
 * values whose names or number make its shape (the columns an update sets, the ids of an `in` list).
 */
export function prefixed(values: Record<string, unknown>, prefix: string, value: (name: string) => never): Record<string, unknown> {
  const group: Record<string, unknown> = {};
  for (const name of Object.keys(values)) if (name.startsWith(`${prefix}:`)) group[name.slice(prefix.length + 1)] = value(name);
  return group;
}

/**
 * The `<prefix>:<name>` strings made so far. A string built at each call is a new property key each time, hashed
 * and looked up as one; the few dozen a store uses are built once (setPrefixed was some 2 % of a keyed call).
 */
const prefixedNames = new Map<string, Map<string, string>>();

/** `group` as `<prefix>:<name>` values, for prefixed() (a list: its indexes are the names). */
export function setPrefixed<Values extends Record<string, unknown>>(values: Values, prefix: string, group: object): Values {
  let names = prefixedNames.get(prefix);
  if (names === undefined) {
    names = new Map();
    prefixedNames.set(prefix, names);
  }
  for (const name in group) {
    let full = names.get(name);
    if (full === undefined) {
      full = `${prefix}:${name}`;
      // Bounded by the columns and list positions the statements use; a stray name only costs its own build.
      if (names.size < 1_000) names.set(name, full);
    }
    (values as Record<string, unknown>)[full] = (group as Record<string, unknown>)[name];
  }
  return values;
}
