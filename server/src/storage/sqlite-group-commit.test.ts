/**
 * Group commit on SQLite (storage/sqlite-group-commit.ts): a transaction resolves only once a second connection
 * can read what it wrote and the WAL sync that covers its COMMIT has finished; concurrent transactions share COMMITs
 * and syncs; one that fails takes none of the others down; a single write outside a transaction (an
 * `insert ... returning` too) is committed and synced before it resolves; a failed sync acknowledges nothing; a write
 * marked NO_DURABLE_WAIT (the Idempotency-Key claim) resolves at once, in a batch that the writes of the same turn
 * of the event loop share and that commits at its end, and writtenSoFarDurable() after the sync that covers it.
 * whileNoWrites (the checkpoint worker's hold) commits the open batch first and keeps every statement waiting until
 * its work is done. A statement compiled once (storage/compiled-query.ts) skips Kysely's
 * executor when nothing holds the connection, and otherwise waits its turn as Kysely's statements do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { RailLedgerKey } from './recovery/records';
import { compiledOnce } from './compiled-query';
import { durableTransaction, groupCommitOf, openDatabase } from './database';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema';
import { SqlStore } from './sql-store';
import { NO_DURABLE_WAIT, type SqliteGroupCommit } from './sqlite-group-commit';

const key = (reference: string): RailLedgerKey => ({ accountId: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference });

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let store: SqlStore;
  let storeDb: Kysely<Database>;
  let group: SqliteGroupCommit;
  let reader: BetterSqlite3.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rail-group-'));
    file = join(dir, 'rail.sqlite');
    const { db } = openDatabase({ sqliteFile: file });
    storeDb = db as Kysely<Database>;
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

  /**
   * A plain single write outside a transaction (no NO_DURABLE_WAIT): its caller waits for a sync that covers it.
   * (The rail ledger's own insert no longer does: storage/recovery/sql-store.ts.)
   */
  const plainWrite = (db: Kysely<Database>, reference: string) =>
    db
      .insertInto('rail_ledger')
      .values({ account_id: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference, answer: '{}', created_at: new Date().toISOString() })
      .execute();

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
    const single = plainWrite(storeDb, 'single');
    await single;
    expect(committed('single').n).toBe(1);
    await inTransaction;
    expect(committed('tx').n).toBe(1);
  });

  test('whileNoWrites: the open batch is committed before the work runs, and statements wait until it is done', async () => {
    // Its COMMIT would wait for the next turn of the event loop; the hold comes before that.
    const before = store.transaction((tx) => tx.railLedger.rememberRailAnswer(key('before-hold'), { kind: 'pending' }, new Date()));
    let during: Promise<unknown> | undefined;
    const seenInside = await group.whileNoWrites(async () => {
      const committedFirst = committed('before-hold').n;
      during = plainWrite(storeDb, 'during-hold');
      // Time for the write to run if it did not wait for the hold (it must not).
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { committedFirst, written: committed('during-hold').n };
    });
    expect(seenInside).toEqual({ committedFirst: 1, written: 0 });
    await Promise.all([before, during]);
    expect(committed('during-hold').n).toBe(1);
  });

  /** The same store on its own file, with WAL syncs that wait until the test lets them finish. */
  async function heldSyncStore() {
    const heldFile = join(dir, 'held.sqlite');
    const pending: { resolve(): void; reject(error: Error): void }[] = [];
    const { db } = openDatabase({
      sqliteFile: heldFile,
      sqliteSync: () => () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    });
    const held = new SqlStore(db, 'sqlite');
    const migrating = held.migrate();
    // Migrations write too: let every sync they ask for finish.
    const releaser = setInterval(() => pending.splice(0).forEach((sync) => sync.resolve()), 1);
    await migrating;
    clearInterval(releaser);
    const heldReader = new BetterSqlite3(heldFile, { readonly: true });
    const seen = (reference: string) => (heldReader.prepare('select count(*) as n from rail_ledger where reference = ?').get(reference) as { n: number }).n;
    const turns = async (n: number) => {
      for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    return { held, db: db as Kysely<Database>, group: groupCommitOf(db)!, pending, seen, turns, close: async () => {
      heldReader.close();
      const closing = held.close();
      const releasing = setInterval(() => pending.splice(0).forEach((sync) => sync.resolve()), 1);
      await closing;
      clearInterval(releasing);
    } };
  }

  test('a transaction, a single write and an insert ... returning resolve only after the sync that covers their COMMIT', async () => {
    const s = await heldSyncStore();
    try {
      const settled: string[] = [];
      const inTransaction = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('held-tx'), { kind: 'pending' }, new Date())).then(() => settled.push('tx'));
      const single = plainWrite(s.db, 'held-single').then(() => settled.push('single'));
      const returning = s.db
        .insertInto('rail_ledger')
        .values({ account_id: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference: 'held-returning', answer: '{}', created_at: new Date().toISOString() })
        .returningAll()
        .execute()
        .then(() => settled.push('returning'));
      await s.turns(20);
      // Committed (another connection reads them) but not yet synced: nobody is told.
      expect([s.seen('held-tx'), s.seen('held-single'), s.seen('held-returning')]).toEqual([1, 1, 1]);
      expect(settled).toEqual([]);
      expect(s.pending.length).toBe(1);
      while (s.pending.length > 0) {
        s.pending.splice(0).forEach((sync) => sync.resolve());
        await s.turns(5);
      }
      await Promise.all([inTransaction, single, returning]);
      expect(settled.sort()).toEqual(['returning', 'single', 'tx']);
    } finally {
      await s.close();
    }
  });

  test('writes made while a sync runs share one COMMIT when it ends, and wait for the next sync', async () => {
    const s = await heldSyncStore();
    try {
      let first = false;
      let later = 0;
      const one = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('first'), { kind: 'pending' }, new Date())).then(() => (first = true));
      await s.turns(10);
      expect(s.pending.length).toBe(1);
      const commitsBefore = s.group.commits;
      const laterWrites = [
        s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('second'), { kind: 'pending' }, new Date())),
        s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('third'), { kind: 'pending' }, new Date())),
        plainWrite(s.db, 'fourth'),
      ].map((write) => write.then(() => (later += 1)));
      await s.turns(10);
      // Held open behind the running sync: not committed yet, so another connection does not see them.
      expect(['second', 'third', 'fourth'].map(s.seen)).toEqual([0, 0, 0]);
      expect(s.group.commits).toBe(commitsBefore);
      s.pending.shift()!.resolve();
      await one;
      await s.turns(10);
      // Committed together once the sync ended, and waiting for the sync that covers them.
      expect(['second', 'third', 'fourth'].map(s.seen)).toEqual([1, 1, 1]);
      expect(s.group.commits).toBe(commitsBefore + 1);
      expect([first, later]).toEqual([true, 0]);
      expect(s.pending.length).toBe(1);
      s.pending.shift()!.resolve();
      await Promise.all(laterWrites);
      expect(later).toBe(3);
    } finally {
      await s.close();
    }
  });

  test('another connection of the same process writes at once: the batch held open behind a sync is committed first', async () => {
    const s = await heldSyncStore();
    const other = openDatabase({ sqliteFile: join(dir, 'held.sqlite') }).db as Kysely<Database>;
    try {
      const one = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('first'), { kind: 'pending' }, new Date()));
      await s.turns(10);
      const held = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('held-open'), { kind: 'pending' }, new Date()));
      await s.turns(10);
      expect(s.seen('held-open')).toBe(0);
      // Without the hand-over this write waits for the write lock on the thread that would end the sync: "database is locked".
      await plainWrite(other, 'from-the-other');
      expect([s.seen('held-open'), s.seen('from-the-other')]).toEqual([1, 1]);
      while (s.pending.length > 0 || !(await Promise.race([Promise.all([one, held]).then(() => true), s.turns(5).then(() => false)]))) {
        s.pending.splice(0).forEach((sync) => sync.resolve());
        await s.turns(5);
      }
    } finally {
      await other.destroy();
      await s.close();
    }
  });

  /** A single write of the ledger, marked NO_DURABLE_WAIT. */
  const noWait = (db: Kysely<Database>, reference: string) =>
    db
      .insertInto('rail_ledger')
      .values({ account_id: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference, answer: '{}', created_at: new Date().toISOString() })
      .modifyEnd(sql.raw(NO_DURABLE_WAIT))
      .execute();

  test('a single write marked NO_DURABLE_WAIT (the Idempotency-Key claim) resolves at once, commits at the end of its turn; writtenSoFarDurable after its sync', async () => {
    const s = await heldSyncStore();
    try {
      await noWait(s.db, 'claim');
      // In the open batch: every later statement of this connection sees it, another connection once it commits.
      const sameConnection = await s.db.selectFrom('rail_ledger').select('reference').where('reference', '=', 'claim').execute();
      expect([sameConnection.length, s.seen('claim')]).toEqual([1, 0]);
      await s.turns(1);
      // Committed while its sync is still held.
      expect(s.seen('claim')).toBe(1);
      let durable = false;
      const waiting = s.group.writtenSoFarDurable().then(() => (durable = true));
      await s.turns(10);
      expect(durable).toBe(false);
      expect(s.pending.length).toBe(1);
      // A later plain single write (the answer stored after the operation) still waits for a sync of its own.
      let stored = false;
      const storing = plainWrite(s.db, 'answer').then(() => (stored = true));
      await s.turns(10);
      expect(stored).toBe(false);
      s.pending.shift()!.resolve();
      await waiting;
      expect([durable, stored]).toEqual([true, false]);
      while (!stored) {
        s.pending.splice(0).forEach((sync) => sync.resolve());
        await s.turns(5);
      }
      await storing;
    } finally {
      await s.close();
    }
  });

  test('NO_DURABLE_WAIT starts no sync before its turn ends: the transaction that follows it in that turn shares one', async () => {
    const s = await heldSyncStore();
    try {
      const syncsBefore = s.group.syncs;
      let done = false;
      // The claim, then at once the operation it guards, as the Idempotency-Key middleware runs them.
      const operation = noWait(s.db, 'claim')
        .then(() => s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('operation'), { kind: 'pending' }, new Date())))
        .then(() => (done = true));
      await s.turns(10);
      // One sync, started once the operation's batch had committed (its own sync first, the operation's COMMIT
      // waiting behind it, would have needed two).
      expect(s.pending.length).toBe(1);
      expect([s.seen('claim'), s.seen('operation'), done]).toEqual([1, 1, false]);
      s.pending.shift()!.resolve();
      await operation;
      expect(s.group.syncs - syncsBefore).toBe(1);
      expect(s.pending.length).toBe(0);
    } finally {
      await s.close();
    }
  });

  test('NO_DURABLE_WAIT writes of one turn share one COMMIT at its end instead of autocommitting one by one', async () => {
    const s = await heldSyncStore();
    try {
      const commitsBefore = s.group.commits;
      const answers = ['answer-1', 'answer-2', 'answer-3'];
      // As the answers of the requests that one sync released are stored, one after another in the same turn.
      for (const reference of answers) await noWait(s.db, reference);
      expect(answers.map(s.seen)).toEqual([0, 0, 0]);
      await s.turns(1);
      expect(answers.map(s.seen)).toEqual([1, 1, 1]);
      expect(s.group.commits - commitsBefore).toBe(1);
      expect(s.pending.length).toBe(1);
    } finally {
      await s.close();
    }
  });

  test('NO_DURABLE_WAIT: a failed sync rejects writtenSoFarDurable', async () => {
    const s = await heldSyncStore();
    try {
      await noWait(s.db, 'claim-lost');
      const durable = s.group.writtenSoFarDurable();
      await s.turns(10);
      s.pending.shift()!.reject(new Error('EIO'));
      await expect(durable).rejects.toThrow('EIO');
    } finally {
      await s.close().catch(() => undefined);
    }
  });

  test('a failed sync also refuses what committed while it ran, instead of leaving it waiting', async () => {
    const s = await heldSyncStore();
    try {
      const covered = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('covered'), { kind: 'pending' }, new Date()));
      await s.turns(10);
      expect(s.pending.length).toBe(1);
      // Committed after the held sync started: it waits for the next sync, which the failure means never comes.
      await noWait(s.db, 'claim-during-sync');
      const durable = s.group.writtenSoFarDurable();
      const during = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('during'), { kind: 'pending' }, new Date()));
      await s.turns(10);
      s.pending.shift()!.reject(new Error('EIO'));
      await expect(covered).rejects.toThrow('EIO');
      await expect(durable).rejects.toThrow('EIO');
      await expect(during).rejects.toThrow('EIO');
    } finally {
      await s.close().catch(() => undefined);
    }
  });

  test('a failed sync acknowledges neither the writes it covered nor any later one', async () => {
    const s = await heldSyncStore();
    try {
      const covered = s.held.transaction((tx) => tx.railLedger.rememberRailAnswer(key('lost'), { kind: 'pending' }, new Date()));
      await s.turns(10);
      s.pending.shift()!.reject(new Error('EIO'));
      await expect(covered).rejects.toThrow('EIO');
      await expect(plainWrite(s.db, 'later')).rejects.toThrow('EIO');
    } finally {
      await s.close().catch(() => undefined);
    }
  });

  /** A ledger insert compiled once: it runs without Kysely's executor whenever it can. */
  const compiledInsert = compiledOnce<{ reference: string; createdAt: string }>((db, value) =>
    db
      .insertInto('rail_ledger')
      .values({ account_id: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference: value('reference'), answer: '{}', created_at: value('createdAt') }),
  );
  const insertCompiled = (db: Kysely<Database>, reference: string) => compiledInsert(db, { reference, createdAt: new Date().toISOString() });
  const countIn = async (db: Kysely<Database>, reference: string) =>
    Number((await db.selectFrom('rail_ledger').select((eb) => eb.fn.countAll().as('n')).where('reference', '=', reference).executeTakeFirstOrThrow()).n);

  test('a statement compiled once skips Kysely\'s executor on a free connection, and waits behind a transaction that holds it', async () => {
    const viaKysely = vi.spyOn(storeDb, 'executeQuery');
    await insertCompiled(storeDb, 'free');
    expect(committed('free').n).toBe(1);
    expect(viaKysely).not.toHaveBeenCalled();

    let queued: Promise<unknown> | undefined;
    const failed = storeDb.transaction().execute(async (trx) => {
      await trx.insertInto('rail_ledger').values({ account_id: 'acc_group', mode: 'test', rail: 'upi', operation: 'authorize', reference: 'in-tx', answer: '{}', created_at: new Date().toISOString() }).execute();
      queued = insertCompiled(storeDb, 'queued');
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Had it run on the held connection, the transaction would see it (and roll it back below).
      expect(await countIn(trx, 'queued')).toBe(0);
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    await queued;
    expect([committed('in-tx').n, committed('queued').n]).toEqual([0, 1]);
    expect(viaKysely).toHaveBeenCalledTimes(1);
  });

  test('a statement compiled once inside a transaction is one of its statements: rolled back with it', async () => {
    const failed = storeDb.transaction().execute(async (trx) => {
      const viaKysely = vi.spyOn(trx, 'executeQuery');
      await insertCompiled(trx, 'with-the-tx');
      expect(await countIn(trx, 'with-the-tx')).toBe(1);
      expect(viaKysely).not.toHaveBeenCalled();
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(committed('with-the-tx').n).toBe(0);
    await durableTransaction(storeDb, (trx) => insertCompiled(trx, 'kept'));
    expect(committed('kept').n).toBe(1);
  });

  test('a statement compiled once that writes resolves only after the sync that covers it', async () => {
    const s = await heldSyncStore();
    try {
      let settled = false;
      const write = insertCompiled(s.db, 'direct-held').then(() => (settled = true));
      await s.turns(10);
      expect([s.seen('direct-held'), settled, s.pending.length]).toEqual([1, false, 1]);
      s.pending.shift()!.resolve();
      await write;
      expect(settled).toBe(true);
    } finally {
      await s.close();
    }
  });

  test('a statement compiled once that fails rejects with SQLite\'s error; the connection goes on', async () => {
    await insertCompiled(storeDb, 'twice');
    await expect(insertCompiled(storeDb, 'twice')).rejects.toThrow(/UNIQUE constraint failed/);
    await insertCompiled(storeDb, 'after');
    await durableTransaction(storeDb, (trx) => insertCompiled(trx, 'after-in-tx'));
    expect([committed('twice').n, committed('after').n, committed('after-in-tx').n]).toEqual([1, 1, 1]);
  });

  test('once the database closes, a statement compiled once is refused as Kysely refuses its own', async () => {
    await insertCompiled(storeDb, 'before-close');
    const closing = store.close();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(insertCompiled(storeDb, 'after-close')).rejects.toThrow('driver has already been destroyed');
    await closing;
    expect([committed('before-close').n, committed('after-close').n]).toEqual([1, 0]);
  });
});
