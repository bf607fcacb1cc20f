/**
 * Group commit on SQLite (storage/sqlite-group-commit.ts): a transaction resolves only once a second connection
 * can read what it wrote (committed, so durable under synchronous=FULL); concurrent transactions share COMMITs; one
 * that fails takes none of the others down; a single write outside a transaction is committed before it resolves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RailLedgerKey } from './recovery/records';
import { groupCommitOf, openDatabase } from './database';
import { SqlStore } from './sql-store';
import type { SqliteGroupCommit } from './sqlite-group-commit';

const key = (reference: string): RailLedgerKey => ({ accountId: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference });

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let store: SqlStore;
  let group: SqliteGroupCommit;
  let reader: BetterSqlite3.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rail-group-'));
    file = join(dir, 'rail.sqlite');
    const { db } = openDatabase({ sqliteFile: file });
    store = new SqlStore(db, 'sqlite');
    group = groupCommitOf(db)!;
    await store.migrate();
    reader = new BetterSqlite3(file, { readonly: true });
  });
  afterEach(async () => {
    reader.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What another connection sees: only committed rows. */
  const committed = (reference: string) => reader.prepare('select count(*) as n from rail_ledger where reference = ?').get(reference) as { n: number };

  test('a transaction resolves only after its COMMIT: another connection already sees it', async () => {
    await store.transaction((tx) => tx.railLedger.rememberRailAnswer(key('one'), { kind: 'pending' }, new Date()));
    expect(committed('one').n).toBe(1);
  });

  test('50 concurrent transactions: all committed when they resolve, in fewer COMMITs than transactions', async () => {
    const before = group.commits;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.transaction((tx) => tx.railLedger.rememberRailAnswer(key(`many-${i}`), { kind: 'pending' }, new Date()))),
    );
    for (let i = 0; i < 50; i += 1) expect(committed(`many-${i}`).n, `many-${i}`).toBe(1);
    const commits = group.commits - before;
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(50);
  });

  test('a transaction that fails rolls back alone; the others of its batch commit', async () => {
    const results = await Promise.allSettled([
      store.transaction((tx) => tx.railLedger.rememberRailAnswer(key('before'), { kind: 'pending' }, new Date())),
      store.transaction(async (tx) => {
        await tx.railLedger.rememberRailAnswer(key('doomed'), { kind: 'pending' }, new Date());
        throw new Error('work failed');
      }),
      store.transaction((tx) => tx.railLedger.rememberRailAnswer(key('after'), { kind: 'pending' }, new Date())),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([committed('before').n, committed('doomed').n, committed('after').n]).toEqual([1, 0, 1]);
  });

  test('a single write right after a transaction joins its batch and resolves only after the COMMIT', async () => {
    // The transaction's batch is still open (its COMMIT waits for the next turn of the event loop) when the single
    // write runs in it; the write must not resolve before the batch is committed.
    const inTransaction = store.transaction((tx) => tx.railLedger.rememberRailAnswer(key('tx'), { kind: 'pending' }, new Date()));
    const single = store.railLedger.rememberRailAnswer(key('single'), { kind: 'pending' }, new Date());
    await single;
    expect(committed('single').n).toBe(1);
    await inTransaction;
    expect(committed('tx').n).toBe(1);
  });
});
