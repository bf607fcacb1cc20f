/**
 * Migration 0024 on SQLite and PostgreSQL: events stored before it under `<id>.<version>` (a payment's repeated event
 * type, every subscription event) get their object's own id back and their version in object_version; the other rows
 * keep version 0; delivery attempts keep their events (SQLite rebuilds the table); afterwards the same change is
 * written once and another version of it is written again.
 */
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { expect, test } from 'vitest';
import { openDatabase } from '../database';
import { eventsSqlStores } from '../events/sql-store';
import type { OutboxEventRecord } from '../events/records';
import { createTestDatabase } from '../../test-support/harness';
import { forEachEngine } from '../../test-support/engines';
import { migration0024EventObjectVersion } from './0024-event-object-version';
import { migrateStepByStep, migrateToLatest } from './index';

const BEFORE = '0021_idempotency_batch_function';
const CREATED = '2025-01-01T00:00:00.000Z';

forEachEngine('migration 0024 (event object versions)', (engine) => {
  test('repeats stored as <id>.<version> move to their object id and version; attempts stay; the key takes the version', async () => {
    const database = await createTestDatabase(engine);
    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
    const raw = db as unknown as Kysely<unknown>;
    try {
      await migrateStepByStep(raw, BEFORE);
      await sql`insert into accounts (account_id, slug, name, settings, created_at) values ('acc_m', 'm', 'M', '{}', ${CREATED})`.execute(raw);
      const event = async (eventId: string, objectType: string, objectId: string, eventType: string, object: Record<string, unknown>) => {
        const payload = JSON.stringify({ event_id: eventId, event_type: eventType, content: { object } });
        await sql`insert into webhook_events (event_id, account_id, mode, event_type, object_type, object_id, payload, delivery_status, attempt_count, created_at, updated_at)
          values (${eventId}, 'acc_m', 'test', ${eventType}, ${objectType}, ${objectId}, ${payload}, 'delivered', 1, ${CREATED}, ${CREATED})`.execute(raw);
      };
      await event('evt_1', 'payment', 'pay_a', 'payment_captured', { payment_id: 'pay_a' });
      await event('evt_2', 'payment', 'pay_a.7', 'payment_captured', { payment_id: 'pay_a' });
      await event('evt_3', 'subscription', 'sub_b.3', 'subscription_paused', { id: 'sub_b' });
      await event('evt_4', 'refund', 'ref_c', 'refund_succeeded', { refund_id: 'ref_c' });
      await sql`insert into webhook_attempts (account_id, mode, event_id, attempt_number, trigger, url, attempted_at, status_code, duration_ms, succeeded)
        values ('acc_m', 'test', 'evt_2', 1, 'scheduled', 'http://127.0.0.1/', ${CREATED}, 200, 5, 1)`.execute(raw);

      await migrateStepByStep(raw);

      const { rows } = await sql<{ event_id: string; object_id: string; object_version: number }>`
        select event_id, object_id, object_version from webhook_events order by event_id`.execute(raw);
      expect(rows.map((row) => [row.event_id, row.object_id, Number(row.object_version)])).toEqual([
        ['evt_1', 'pay_a', 0],
        ['evt_2', 'pay_a', 7],
        ['evt_3', 'sub_b', 3],
        ['evt_4', 'ref_c', 0],
      ]);
      const attempts = await sql<{ event_id: string }>`select event_id from webhook_attempts`.execute(raw);
      expect(attempts.rows).toEqual([{ event_id: 'evt_2' }]);
      if (engine === 'sqlite') expect((await sql`pragma foreign_key_check`.execute(raw)).rows).toEqual([]);

      const outbox = eventsSqlStores(db).outbox;
      const record = (eventId: string, objectVersion: number): OutboxEventRecord => ({
        eventId,
        accountId: 'acc_m',
        mode: 'test',
        eventType: 'payment_captured',
        objectType: 'payment',
        objectId: 'pay_a',
        objectVersion,
        payload: { event_id: eventId },
        createdAt: new Date(CREATED),
      });
      expect(await outbox.insertEvent(record('evt_5', 7))).toBe('duplicate');
      expect(await outbox.insertEvent(record('evt_6', 8))).toBe('inserted');
      expect((await outbox.listEventsForObject({ accountId: 'acc_m', mode: 'test' }, 'pay_a')).map((e) => e.eventId)).toEqual(['evt_1', 'evt_2', 'evt_6']);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
  test('a run stopped halfway through its moves leaves the table as it was, and the next start migrates it', async () => {
    const database = await createTestDatabase(engine);
    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
    const raw = db as unknown as Kysely<unknown>;
    try {
      await migrateStepByStep(raw, '0023_ephemeral_key_issuer');
      await sql`insert into accounts (account_id, slug, name, settings, created_at) values ('acc_m', 'm', 'M', '{}', ${CREATED})`.execute(raw);
      for (const [eventId, objectId] of [['evt_1', 'pay_a'], ['evt_2', 'pay_a.7'], ['evt_3', 'pay_a.9']]) {
        const payload = JSON.stringify({ event_id: eventId, content: { object: { payment_id: 'pay_a' } } });
        await sql`insert into webhook_events (event_id, account_id, mode, event_type, object_type, object_id, payload, delivery_status, attempt_count, created_at, updated_at)
          values (${eventId}, 'acc_m', 'test', 'payment_captured', 'payment', ${objectId}, ${payload}, 'delivered', 1, ${CREATED}, ${CREATED})`.execute(raw);
      }
      // The second row's move fails, as a process killed there would stop.
      let moves = 0;
      const failSecondMove: KyselyPlugin = {
        transformQuery(args) {
          const node = args.node as { kind: string; sqlFragments?: readonly string[] };
          if (node.kind === 'RawNode' && node.sqlFragments?.join('?').startsWith('update webhook_events set object_id') && ++moves > 1) throw new Error('stopped');
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      if (engine === 'postgres') {
        // Kysely runs a PostgreSQL migration in a transaction; the test does the same.
        await expect(raw.withPlugin(failSecondMove).transaction().execute((trx) => migration0024EventObjectVersion.up(trx))).rejects.toThrow('stopped');
      } else {
        await expect(migration0024EventObjectVersion.up(raw.withPlugin(failSecondMove))).rejects.toThrow('stopped');
      }
      const before = await sql<{ event_id: string; object_id: string }>`select event_id, object_id from webhook_events order by event_id`.execute(raw);
      expect(before.rows.map((row) => row.object_id)).toEqual(['pay_a', 'pay_a.7', 'pay_a.9']);

      expect(await migrateToLatest(raw)).toBe('migrated');
      const after = await sql<{ object_id: string; object_version: number }>`select object_id, object_version from webhook_events order by event_id`.execute(raw);
      expect(after.rows.map((row) => [row.object_id, Number(row.object_version)])).toEqual([['pay_a', 0], ['pay_a', 7], ['pay_a', 9]]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
