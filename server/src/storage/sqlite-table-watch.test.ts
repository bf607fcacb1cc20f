/**
 * storage/sqlite-table-watch.ts: the generation moves when this connection writes a watched table and again when
 * that write is settled, and is undefined in between; it moves when another connection commits; writes to other
 * tables leave it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { SqliteTableWatch } from './sqlite-table-watch';

let dir: string;
let sqlite: BetterSqlite3.Database;
let other: BetterSqlite3.Database;
let watch: SqliteTableWatch;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rail-watch-'));
  sqlite = new BetterSqlite3(join(dir, 'watch.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table api_keys (id text); create table payments (id text)');
  other = new BetterSqlite3(join(dir, 'watch.sqlite'));
  watch = new SqliteTableWatch(sqlite, ['api_keys', 'accounts']);
});
afterEach(() => {
  other.close();
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

test('which statements touch the watched tables', () => {
  expect(watch.touches('update "api_keys" set "revoked_at" = ? where "key_id" = ?')).toBe(true);
  expect(watch.touches('insert into "accounts" ("account_id") values (?)')).toBe(true);
  expect(watch.touches('insert into "payments" ("account_id", "mode") values (?, ?)')).toBe(false);
  expect(watch.touches('update "payments" set "account_id" = ?')).toBe(false);
});

test("this connection's write: no generation until it is settled, then a new one", () => {
  const before = watch.generation();
  expect(before).toBeDefined();
  expect(watch.generation()).toBe(before);
  watch.noteWrite();
  expect(watch.generation()).toBeUndefined();
  watch.noteSettled();
  const after = watch.generation();
  expect(after).toBeDefined();
  expect(after).not.toBe(before);
  watch.noteSettled();
  expect(watch.generation()).toBe(after);
});

test("another connection's commit moves the generation; this connection's own does not", () => {
  const before = watch.generation();
  sqlite.exec("insert into payments values ('mine')");
  expect(watch.generation()).toBe(before);
  other.exec("insert into payments values ('theirs')");
  expect(watch.generation()).not.toBe(before);
});
