/**
 * The Idempotency-Key claim and answer in the store: a first claim inserts, a repeat reports the row, on both
 * engines. Neither write waits for its own sync: on SQLite both resolve while the WAL sync that would cover them is
 * held; on PostgreSQL each turns synchronous_commit off for its own transaction only: the connection keeps it on
 * afterwards, and inside a caller's transaction they leave that transaction's commit as it was.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Database } from '../schema';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, synchronousCommit, withHeldSyncs, withOwnConnection, type Harness } from '../../test-support/harness';
import type { IdempotencyKeyRecord } from './records';
import { SqlIdempotencyStore } from './sql-store';

forEachEngine('Idempotency store', (engine) => {
  let h: Harness;
  let seq = 0;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const claim = (): IdempotencyKeyRecord => {
    const now = new Date('2025-01-01T00:00:00.000Z');
    seq += 1;
    return {
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyKind: 'secret',
      key: `store-${engine}-${seq}`,
      fingerprint: 'f'.repeat(64),
      method: 'POST',
      path: '/payments',
      status: 'in_flight',
      claimToken: `token-${seq}`,
      lockedAt: now,
      response: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
      idsTime: now,
      idsScheme: 2,
    };
  };

  /** One connection, so that what a statement leaves on the session is what the next one sees. */
  const withOneConnection = (work: (db: Kysely<Database>) => Promise<void>) => withOwnConnection(h.database, work);

  test('a first claim inserts the in-flight row; a repeat reports it and changes nothing', async () => {
    await withOneConnection(async (db) => {
      const store = new SqlIdempotencyStore(db);
      const record = claim();
      const first = await store.insertClaim(record);
      await first.durable;
      expect(first.result).toBe('inserted');
      const repeat = await store.insertClaim({ ...record, claimToken: 'another' });
      expect(repeat.result).not.toBe('inserted');
      expect(await store.findKey(record, record.key)).toMatchObject({ status: 'in_flight', claimToken: record.claimToken, response: null, idsTime: record.idsTime });
    });
  });

  test('a re-claim writes the ids time it is given: the first claim\'s for a re-run, none for a claim of an earlier version', async () => {
    const record = claim();
    const store = new SqlIdempotencyStore(h.db);
    await (await store.insertClaim({ ...record, idsTime: null })).durable;
    expect((await store.findKey(record, record.key))?.idsTime).toBeNull();
    const later = new Date(record.lockedAt.getTime() + 120_000);
    const rerun = { ...record, claimToken: 'rerun', lockedAt: later, idsTime: null };
    expect(await store.reclaim(rerun, new Date(later.getTime() - 60_000))).toBe(true);
    expect(await store.findKey(record, record.key)).toMatchObject({ claimToken: 'rerun', idsTime: null });
    const again = { ...rerun, claimToken: 'again', lockedAt: new Date(later.getTime() + 120_000), idsTime: record.createdAt };
    expect(await store.reclaim(again, new Date(again.lockedAt.getTime() - 60_000))).toBe(true);
    expect(await store.findKey(record, record.key)).toMatchObject({ claimToken: 'again', idsTime: record.createdAt });
  });

  test.runIf(engine === 'sqlite')('the claim and the answer resolve once written, while the WAL sync that would cover them is held', async () => {
    const record = claim();
    const answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    await withHeldSyncs(h.database, async (db, heldSyncs) => {
      const store = new SqlIdempotencyStore(db);
      const inserted = await store.insertClaim(record);
      expect(inserted.result).toBe('inserted');
      const durable = inserted.durable.then(() => 'durable');
      const completed = store.complete(record, record.key, record.claimToken, answer).then((stored) => ({ stored }));
      const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000));
      expect(await Promise.race([completed, waited])).toEqual({ stored: true });
      // Their sync starts at the end of the event loop's turn (after what follows them in that turn) and is held.
      await new Promise((resolve) => setImmediate(resolve));
      expect(heldSyncs()).toBeGreaterThanOrEqual(1);
      expect(await Promise.race([durable, Promise.resolve('not durable')])).toBe('not durable');
      // A repeat (on the connection, as the server's requests share its one) finds the answer.
      expect(await store.findKey(record, record.key)).toMatchObject({ status: 'done', response: answer });
    });
  });

  test.runIf(engine === 'postgres')('the claim and the answer turn synchronous_commit off for their own commits only: the connection keeps it on', async () => {
    await withOneConnection(async (db) => {
      expect(await synchronousCommit(db)).toBe('on');
      const store = new SqlIdempotencyStore(db);
      const record = claim();
      expect((await store.insertClaim(record)).result).toBe('inserted');
      expect(await synchronousCommit(db)).toBe('on');
      expect(await store.complete(record, record.key, record.claimToken, { status: 201, headers: {}, body: '{}' })).toBe(true);
      expect(await synchronousCommit(db)).toBe('on');
      expect(await new SqlIdempotencyStore(h.db).findKey(record, record.key)).toMatchObject({ status: 'done', response: { status: 201 } });
    });
  });

  test.runIf(engine === 'postgres')("inside a caller's transaction the claim and the answer leave that transaction's commit durable", async () => {
    await withOneConnection(async (db) => {
      await db.transaction().execute(async (tx) => {
        const store = new SqlIdempotencyStore(tx);
        const record = claim();
        expect((await store.insertClaim(record)).result).toBe('inserted');
        expect(await store.complete(record, record.key, record.claimToken, { status: 201, headers: {}, body: '{}' })).toBe(true);
        expect(await synchronousCommit(tx)).toBe('on');
      });
    });
  });

  /** The transaction that wrote each key's row as it is now (PostgreSQL's xmin): rows written by one statement share it. */
  const writers = async (db: Kysely<Database>, keys: string[]) => {
    const rows = (await sql<{ idempotency_key: string; writer: string }>`select idempotency_key, xmin::text as writer from idempotency_keys where idempotency_key in (${sql.join(keys)})`.execute(db)).rows;
    return Object.fromEntries(rows.map((row) => [row.idempotency_key, row.writer]));
  };

  test.runIf(engine === 'postgres')('claims and answers that come while one is written go together in the next statement, each told its own outcome', async () => {
    await withOneConnection(async (db) => {
      const store = new SqlIdempotencyStore(db);
      const [held, answered, foreign] = [claim(), claim(), claim()];
      for (const record of [held, answered, foreign]) expect((await store.insertClaim(record)).result).toBe('inserted');
      // Once the last of those statements is done, the next write goes alone.
      await new Promise((resolve) => setImmediate(resolve));
      const [alone, second, twice] = [claim(), claim(), claim()];
      const twiceAgain = { ...twice, claimToken: 'the same key, later in the batch' };
      const response = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"say":"\\"quoted\\", {braced}, NULL, é ✓ 😀"}' };
      const outcomes = await Promise.all([
        store.insertClaim(alone).then((inserted) => inserted.result),
        store.insertClaim(second).then((inserted) => inserted.result),
        store.insertClaim(twice).then((inserted) => inserted.result),
        store.insertClaim(twiceAgain).then((inserted) => inserted.result),
        store.insertClaim({ ...held, claimToken: 'a repeat of a held key' }).then((inserted) => inserted.result),
        store.complete(answered, answered.key, answered.claimToken, response),
        store.complete(foreign, foreign.key, 'not the holder', response),
      ]);
      expect(outcomes).toEqual(['inserted', 'inserted', 'inserted', 'duplicate', 'duplicate', true, false]);
      expect(await store.findKey(twice, twice.key)).toMatchObject({ claimToken: twice.claimToken });
      expect(await store.findKey(answered, answered.key)).toMatchObject({ status: 'done', response });
      expect(await store.findKey(foreign, foreign.key)).toMatchObject({ status: 'in_flight', response: null });
      const writer = await writers(db, [alone.key, second.key, twice.key, answered.key]);
      expect(writer[second.key]).toBe(writer[twice.key]);
      expect(writer[answered.key]).toBe(writer[twice.key]);
      expect(writer[alone.key]).not.toBe(writer[twice.key]);
      // The batch's commit was asynchronous; the connection's sessions stay synchronous, and plan as before (the batch
      // function's generic plans are its own: migration 0021).
      expect(await synchronousCommit(db)).toBe('on');
      expect((await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(db)).rows[0]?.mode).toBe('auto');
    });
  });

  test.runIf(engine === 'postgres')('a batch that fails is written again one statement per write: only the write at fault fails', async () => {
    await withOneConnection(async (db) => {
      const store = new SqlIdempotencyStore(db);
      // A claim without a method breaks the column's NOT NULL, and with it the batch that carries it.
      const [first, good, bad] = [claim(), claim(), { ...claim(), method: null as unknown as string }];
      const outcomes = await Promise.allSettled([store.insertClaim(first), store.insertClaim(good), store.insertClaim(bad)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect(await store.findKey(good, good.key)).toMatchObject({ claimToken: good.claimToken });
      expect(await store.findKey(bad, bad.key)).toBeUndefined();
    });
  });
});
