/**
 * WAL checkpoints on the worker thread (storage/sqlite-checkpointer.ts): what the request connection committed
 * reaches the database file itself without a checkpoint on the event loop, the WAL starts over once the worker has
 * copied all of it (it does not grow without bound), also under writes that never pause (the worker has them held
 * for its last copy), writes made while checkpoints run are all there after a reopen, and a script that closes the
 * database is not ended early by the worker's stop.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { RailLedgerKey } from './recovery/records';
import { checkpointerOf, openDatabase } from './database';
import { SqlStore } from './sql-store';
import type { SqliteCheckpointer } from './sqlite-checkpointer';
import { until } from '../test-support/until';

/** Low thresholds, so that a few thousand writes cross them many times. */
const RESTART_AT = 200;
const FALLBACK_PAGES = 2_000;

const key = (reference: string): RailLedgerKey => ({ accountId: 'acc_ckpt', mode: 'test', rail: 'upi', operation: 'authorize', reference });

describe('SQLite checkpoints on a worker thread', () => {
  let dir: string;
  let file: string;
  let store: SqlStore;
  let checkpointer: SqliteCheckpointer;

  /** The worker from the first write on (checkpointStartAtWalBytes 0), unless a test gives the start's threshold. */
  const open = async (thresholds: { walRestartAtFrames?: number; fallbackAutocheckpointPages?: number; checkpointStartAtWalBytes?: number } = {}) => {
    const { db } = openDatabase({ sqliteFile: file, checkpointIntervalMs: 5, checkpointStartAtWalBytes: 0, ...thresholds });
    store = new SqlStore(db, 'sqlite');
    checkpointer = checkpointerOf(db)!;
    await store.migrate();
  };
  const write = (references: string[]) =>
    Promise.all(references.map((reference) => store.transaction((tx) => tx.railLedger.rememberRailAnswer(key(reference), { kind: 'pending' }, new Date()))));
  const rowsIn = (path: string) => {
    const connection = new BetterSqlite3(path);
    try {
      return (connection.prepare("select count(*) as n from rail_ledger where reference like 'ck-%'").get() as { n: number }).n;
    } finally {
      connection.close();
    }
  };
  /** Every frame of the WAL copied into the database file, as of the worker's last checkpoint. */
  const caughtUp = () => checkpointer.last !== undefined && checkpointer.last.busy === 0 && checkpointer.last.checkpointed === checkpointer.last.log;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rail-checkpoint-'));
    file = join(dir, 'rail.sqlite');
    await open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('committed writes reach the database file itself: the worker checkpointed them, far below any automatic threshold', async () => {
    await write(['ck-1', 'ck-2', 'ck-3']);
    // The database file alone, without its WAL: only what a checkpoint copied is in it.
    const copy = join(dir, 'copy.sqlite');
    const inFileAlone = () => {
      rmSync(`${copy}-wal`, { force: true });
      copyFileSync(file, copy);
      try {
        return rowsIn(copy);
      } catch {
        return 0; // not even the schema has been copied yet
      }
    };
    await until(() => inFileAlone() === 3, 'the database file holds the three rows', { intervalMs: 5 });
    expect(inFileAlone()).toBe(3);
  });

  test('the WAL starts over once the worker has copied it all, instead of growing', async () => {
    await write(Array.from({ length: 200 }, (_, i) => `ck-grow-${i}`));
    await until(() => caughtUp() && checkpointer.last!.log > 20, 'the worker copied the first writes', { intervalMs: 5 });
    const grown = checkpointer.last!.log;
    // A writer that finds every frame copied writes from the start of the WAL again; one that comes while a
    // checkpoint still runs appends, so a trickle of writes is what an idle-ish server sees.
    const trickle: Promise<unknown>[] = [];
    await until(() => {
      trickle.push(write([`ck-after-${trickle.length}`]));
      return checkpointer.last!.log < grown;
    }, 'a checkpoint saw the WAL start over', { intervalMs: 5 });
    await Promise.all(trickle);
    expect(checkpointer.last!.log).toBeLessThan(grown);
  });

  test('under writes that never pause, the WAL starts over at the worker\'s threshold, before the request connection\'s own checkpoint', async () => {
    await store.close();
    await open({ walRestartAtFrames: RESTART_AT, fallbackAutocheckpointPages: FALLBACK_PAGES });
    // Four writers, each starting its next transaction as soon as the last one is durable: no moment without a
    // commit in flight, so the WAL is never wholly copied unless the worker has the writes held for it.
    const streams = Array.from({ length: 4 }, async (_, stream) => {
      for (let i = 0; i < 1_500; i += 1) await write([`ck-stream-${stream}-${i}`]);
    });
    await Promise.all(streams);
    // The WAL file keeps the size of its longest run (SQLite does not shrink it): never near the fallback bound, so
    // the request connection's own checkpoint (at FALLBACK_PAGES frames) never ran.
    const frames = (statSync(`${file}-wal`).size - 32) / (4096 + 24);
    expect(frames).toBeLessThan(FALLBACK_PAGES / 2);
    await store.close();
    await open();
    expect(rowsIn(file)).toBe(6_000);
  });

  test('writes made while checkpoints run are all there after a reopen', async () => {
    const references: string[] = [];
    for (let burst = 0; burst < 20; burst += 1) {
      const batch = Array.from({ length: 50 }, (_, i) => `ck-many-${burst}-${i}`);
      references.push(...batch);
      await write(batch);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(checkpointer.checkpoints).toBeGreaterThan(0);
    await store.close();
    await open();
    expect(rowsIn(file)).toBe(references.length);
  });

  test('a script that writes and closes the database runs to its end: stopping the worker keeps the process alive until it exits', () => {
    const script = join(dir, 'close.mts');
    const database = fileURLToPath(new URL('./database.ts', import.meta.url));
    const sqlStore = fileURLToPath(new URL('./sql-store.ts', import.meta.url));
    writeFileSync(
      script,
      `import { openDatabase } from ${JSON.stringify(database)};
import { SqlStore } from ${JSON.stringify(sqlStore)};
const store = new SqlStore(openDatabase({ sqliteFile: ${JSON.stringify(join(dir, 'script.sqlite'))}, checkpointStartAtWalBytes: 0 }).db, 'sqlite');
await store.migrate();
await store.close();
console.log('closed');
`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
    expect({ status: run.status, stdout: run.stdout.trim() }).toEqual({ status: 0, stdout: 'closed' });
  }, 60_000);

  test('with its start at 0 the worker starts with the first write: a database opened and only read runs none', async () => {
    await write(['ck-first']);
    expect(checkpointer.started).toBe(true);
    await store.close();
    await open();
    expect(await store.railLedger.findRailAnswer(key('ck-first'))).toEqual({ kind: 'pending' });
    expect(checkpointer.started).toBe(false);
    await write(['ck-second']);
    expect(checkpointer.started).toBe(true);
  });

  test('a stopped checkpointer starts no worker again: a write after its stop, as from a timer during a close, syncs without one', async () => {
    await write(['ck-before-stop']);
    expect(checkpointer.started).toBe(true);
    await checkpointer.stop();
    checkpointer.noteSync();
    expect(checkpointer.started).toBe(false);
    await write(['ck-after-stop']);
    expect(checkpointer.started).toBe(false);
    expect(await store.railLedger.findRailAnswer(key('ck-after-stop'))).toEqual({ kind: 'pending' });
  });

  test('the worker starts once the WAL has grown to its threshold: a store written a little runs none', async () => {
    const threshold = 1024 * 1024;
    const walBytes = () => statSync(`${file}-wal`).size;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'rail-checkpoint-'));
    file = join(dir, 'rail.sqlite');
    // A new store: its schema and a write, as a first boot makes, stay far below the threshold.
    await open({ checkpointStartAtWalBytes: threshold });
    await write(['ck-small']);
    expect(walBytes()).toBeLessThan(threshold / 2);
    expect(checkpointer.started).toBe(false);
    let written = 0;
    while (walBytes() < threshold) {
      await write(Array.from({ length: 20 }, (_, i) => `ck-fill-${written}-${i}`));
      written += 1;
    }
    // The sync of the batch whose COMMIT crossed it, which the write waited for, started the worker.
    expect(checkpointer.started).toBe(true);
    await until(() => checkpointer.checkpoints > 0, 'the worker ran a checkpoint', { intervalMs: 5 });
    await store.close();
    await open();
    expect(rowsIn(file)).toBe(written * 20 + 1);
  });
});
