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

test('which statements write the watched tables', () => {
  for (const writes of [
    'update "api_keys" set "revoked_at" = ? where "key_id" = ?',
    'insert into "accounts" ("account_id") values (?)',
    'INSERT OR REPLACE INTO api_keys VALUES (?)',
    'delete from "api_keys" where "key_id" = ?',
    'with "revoked" as (update "api_keys" set "revoked_at" = ? returning *) select * from "revoked"',
    'update only "main"."accounts" set "name" = ?',
    'alter table "accounts" add column "slug" text',
    'drop table if exists api_keys',
    'truncate table "accounts"',
  ]) {
    expect(watch.writesWatched(writes), writes).toBe(true);
  }
  for (const other of [
    'insert into "payments" ("account_id", "mode") values (?, ?)',
    'update "payments" set "account_id" = ?',
    'insert into "accounts_archive" ("account_id") values (?)',
    // A write that only reads a watched table (the outbox's event insert reads the account's webhook settings).
    'insert into "webhook_events" ("delivery_status") values (coalesce((select 1 from webhook_endpoints where account_id = ?), (select case when json_extract(settings, \'$.webhook.url\') <> \'\' then \'pending\' end from accounts where account_id = ?)))',
    'insert into "payments" ("account_id") select "account_id" from "accounts" where "slug" = ? on conflict do update set "updated_at" = ?',
  ]) {
    expect(watch.writesWatched(other), other).toBe(false);
  }
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
