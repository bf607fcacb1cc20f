/**
 * storage/compiled-query.ts: a query is built and compiled once per shape and dialect, each call runs it with its
 * own values, and a call with an undefined value is built as before (Kysely leaves that column out).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { compiledOnce } from './compiled-query';
import { openDatabase } from './database';
import { SqlStore } from './sql-store';
import type { Db } from './sql-rows';

let dir: string;
let store: SqlStore;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rail-compiled-'));
  const opened = openDatabase({ sqliteFile: join(dir, 'rail.sqlite') });
  db = opened.db;
  store = new SqlStore(opened.db, 'sqlite');
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('built once per shape; each call runs with its own values, constants kept', async () => {
  let builds = 0;
  const insert = compiledOnce<Record<string, unknown>>((db, value, values) => {
    builds += 1;
    return db.insertInto('rail_ledger').values({
      account_id: value('accountId'),
      mode: 'test',
      rail: 'upi',
      operation: 'authorize',
      reference: value('reference'),
      answer: 'answer' in values ? value('answer') : '{}',
      created_at: value('createdAt'),
    });
  });
  const select = compiledOnce<{ references: string[]; count: number }>((db, value, values) => {
    builds += 1;
    return db
      .selectFrom('rail_ledger')
      .select(['reference', 'answer'])
      .where('reference', 'in', values.references.map((_, index) => value(`r${index}` as never)))
      .orderBy('reference');
  });
  const now = new Date().toISOString();
  for (const reference of ['a', 'b', 'c']) await insert(db, { accountId: 'acc_1', reference, createdAt: now });
  await insert(db, { accountId: 'acc_1', reference: 'd', answer: '{"kind":"d"}', createdAt: now }, 'with answer');
  expect(builds).toBe(2);
  const find = (references: string[]) =>
    select<{ reference: string; answer: string }>(db, Object.assign({ references, count: references.length }, ...references.map((r, i) => ({ [`r${i}`]: r }))), String(references.length));
  expect((await find(['a', 'c'])).rows).toEqual([
    { reference: 'a', answer: '{}' },
    { reference: 'c', answer: '{}' },
  ]);
  expect((await find(['b', 'd'])).rows.map((row) => row.answer)).toEqual(['{}', '{"kind":"d"}']);
  expect((await find(['d', 'a', 'b'])).rows.map((row) => row.reference)).toEqual(['a', 'b', 'd']);
  expect(builds).toBe(4);
});

test('a call with an undefined value is built as Kysely builds it (the column left out), every time', async () => {
  let builds = 0;
  const insert = compiledOnce<{ reference: string; answer: string | undefined }>((db, value) => {
    builds += 1;
    return db.insertInto('rail_ledger').values({
      account_id: 'acc_2',
      mode: 'test',
      rail: 'upi',
      operation: 'authorize',
      reference: value('reference'),
      answer: value('answer'),
      created_at: new Date().toISOString(),
    });
  });
  await expect(insert(db, { reference: 'x', answer: undefined })).rejects.toThrow(/NOT NULL|answer/);
  await insert(db, { reference: 'y', answer: '{}' });
  await expect(insert(db, { reference: 'z', answer: undefined })).rejects.toThrow(/NOT NULL|answer/);
  expect(builds).toBe(3);
});
