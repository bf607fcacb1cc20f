/**
 * Row objects made with one object literal, from the values of a row in column order: V8 gives every row of a list of
 * columns the same hidden class at once, where both database drivers store each column by its computed name, one at a
 * time. Used for SQLite's rows (sqlite-row-objects.ts) and PostgreSQL's (postgres-row-objects.ts).
 */

type RowObject = Record<string, unknown>;
export type MakeRow = (values: readonly unknown[]) => RowObject;

/**
 * The object of a row whose values come in `names` order: its properties in that order, a later column of a
 * repeated name winning (as with both drivers' objects). Undefined for a `__proto__` column, which an object literal
 * would take as the object's prototype.
 */
export function rowMaker(names: readonly string[]): MakeRow | undefined {
  if (names.includes('__proto__')) return undefined;
  // The names are the statement's own column names, each written as a JSON string literal: data, never code.
  const members = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${members.join(', ')} };`) as MakeRow;
}
