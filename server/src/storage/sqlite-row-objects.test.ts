import SqliteDatabase from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { allRowObjects, iterateRowObjects } from './sqlite-row-objects';
import { rowMaker } from './row-maker';

describe('SQLite rows as objects from raw mode', () => {
  let sqlite: SqliteDatabase.Database;
  const open = () => {
    sqlite = new SqliteDatabase(':memory:');
    sqlite.exec(`create table t (id integer primary key, name text, amount bigint, data blob, note text);
      insert into t values (1, 'one', 100, x'0102', null), (2, 'two', 9007199254740991, null, 'a "quoted" note')`);
    return sqlite;
  };
  afterEach(() => sqlite?.close());

  const queries = [
    ['select * from t order by id', []],
    ['select id, name as "a b", amount as "x", note as "x" from t where id = ?', [2]],
    ['select name, name, 1 + 1 as "two words", null as "" from t order by id desc', []],
    ['select * from t where id = ?', [42]],
    ['update t set note = ? where id = ? returning *', ['changed', 1]],
  ] as const;

  it('answers what the addon answers: names, order, repeated names, values of every type, no rows', () => {
    for (const [sql, parameters] of queries) {
      const expected = open().prepare(sql).all(...parameters);
      sqlite.close();
      const statement = open().prepare(sql) as unknown as SqliteStatement;
      const first = allRowObjects(statement, parameters);
      expect(first).toEqual(expected);
      for (const [index, row] of first.entries()) expect(Object.keys(row as object)).toEqual(Object.keys(expected[index] as object));
      sqlite.close();
    }
  });

  it('keeps answering objects on later runs of the same statement, and through iterate', () => {
    const statement = open().prepare('select id, name from t order by id') as unknown as SqliteStatement;
    expect(allRowObjects(statement, [])).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    expect(allRowObjects(statement, [])).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    expect([...iterateRowObjects(statement, [])]).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    const other = sqlite.prepare('select name from t where id = ?') as unknown as SqliteStatement;
    expect([...iterateRowObjects(other, [2])]).toEqual([{ name: 'two' }]);
  });

  it('leaves a statement with a __proto__ column to the addon, so no row gets a prototype from its data', () => {
    expect(rowMaker(['a', '__proto__'])).toBeUndefined();
    const statement = open().prepare(`select id, '{}' as "__proto__" from t where id = 1`) as unknown as SqliteStatement;
    const [row] = allRowObjects(statement, []) as object[];
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toEqual(sqlite.prepare(`select id, '{}' as "__proto__" from t where id = 1`).get());
  });

  it('takes a column name as data: quotes, backslashes and a closing brace stay a name', () => {
    const make = rowMaker(['a"b', 'c\\d', '}; throw 1; ({', '\u2028'])!;
    expect(make([1, 2, 3, 4])).toEqual({ 'a"b': 1, 'c\\d': 2, '}; throw 1; ({': 3, '\u2028': 4 });
  });
});
