/**
 * The rail ledger in the store, on both engines: the first answer under a reference stays, and its insert commits
 * without waiting for its own sync (the payment's answer written after it is durable and covers it): on SQLite it
 * resolves while the WAL sync is still held; on PostgreSQL it turns synchronous_commit off for its own transaction
 * only, and inside a caller's transaction it leaves that transaction's commit as it was.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, synchronousCommit, withHeldSyncs, type Harness } from '../../test-support/harness';
import type { RailLedgerKey } from './records';
import { SqlRailLedgerStore } from './sql-store';

forEachEngine('Rail ledger store', (engine) => {
  let h: Harness;
  let seq = 0;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const key = (): RailLedgerKey => {
    seq += 1;
    return { accountId: h.boot.account.accountId, mode: 'test', rail: 'upi', operation: 'authorize', reference: `ledger-${engine}-${seq}` };
  };
  const now = new Date('2025-01-01T00:00:00.000Z');

  /** One connection (PostgreSQL: what a statement leaves on the session is what the next one sees), its syncs held on SQLite until released. */
  const withOneConnection = (work: Parameters<typeof withHeldSyncs>[1]) => withHeldSyncs(h.database, work);

  test('the first answer under a reference stays: a second one gets it back', async () => {
    const store = new SqlRailLedgerStore(h.db);
    const reference = key();
    expect(await store.rememberRailAnswer(reference, { kind: 'succeeded', n: 1 }, now)).toEqual({ kind: 'succeeded', n: 1 });
    expect(await store.rememberRailAnswer(reference, { kind: 'failed', n: 2 }, now)).toEqual({ kind: 'succeeded', n: 1 });
    expect(await store.findRailAnswer(reference)).toEqual({ kind: 'succeeded', n: 1 });
  });

  test.runIf(engine === 'sqlite')('the insert resolves once committed, while the WAL sync that would cover it is still held', async () => {
    await withOneConnection(async (db, heldSyncs) => {
      const reference = key();
      await new SqlRailLedgerStore(db).rememberRailAnswer(reference, { kind: 'pending' }, now);
      // Its sync starts at the end of the event loop's turn (after what follows it in that turn) and is held.
      await new Promise((resolve) => setImmediate(resolve));
      expect(heldSyncs()).toBeGreaterThanOrEqual(1);
      // Committed: another connection reads it.
      expect(await new SqlRailLedgerStore(h.db).findRailAnswer(reference)).toEqual({ kind: 'pending' });
    });
  });

  test.runIf(engine === 'postgres')('the insert turns synchronous_commit off for its own commit only: the connection keeps it on', async () => {
    await withOneConnection(async (db) => {
      expect(await synchronousCommit(db)).toBe('on');
      const reference = key();
      await new SqlRailLedgerStore(db).rememberRailAnswer(reference, { kind: 'pending' }, now);
      expect(await synchronousCommit(db)).toBe('on');
      expect(await new SqlRailLedgerStore(h.db).findRailAnswer(reference)).toEqual({ kind: 'pending' });
    });
  });

  test.runIf(engine === 'postgres')("inside a caller's transaction the insert leaves that transaction's commit durable", async () => {
    await withOneConnection(async (db) => {
      await db.transaction().execute(async (tx) => {
        await new SqlRailLedgerStore(tx).rememberRailAnswer(key(), { kind: 'pending' }, now);
        expect(await synchronousCommit(tx)).toBe('on');
      });
    });
  });
});
