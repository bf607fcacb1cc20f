import SqliteDatabase from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { withStatementCache } from './database';

describe('withStatementCache', () => {
  test('one prepared statement per SQL text, bounded, and each runs with its own parameters', () => {
    const sqlite = new SqliteDatabase(':memory:');
    const db = withStatementCache(sqlite, 2);
    db.prepare('create table t (n integer)').run([]);
    const insert = db.prepare('insert into t (n) values (?)');
    insert.run([1]);
    expect(db.prepare('insert into t (n) values (?)')).toBe(insert);
    db.prepare('insert into t (n) values (?)').run([2]);
    expect(db.prepare('select n from t order by n').all([])).toEqual([{ n: 1 }, { n: 2 }]);
    // Two more texts have pushed the insert out (oldest first): it is prepared anew.
    db.prepare('select count(*) as c from t');
    expect(db.prepare('insert into t (n) values (?)')).not.toBe(insert);
    db.close();
  });
});
