/**
 * Migration 0024 on SQLite and PostgreSQL: events stored before it under `<id>.<version>` (a payment's repeated event
 * type, every subscription event) get their object's own id back and their version in object_version; the other rows
 * keep version 0; delivery attempts keep their events (SQLite rebuilds the table); afterwards the same change is
 * written once and another version of it is written again. Its down gives back the schema and rows 0023 left.
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

  /** Every table's columns, keys, foreign keys and indexes, as the engine describes them (not the text that made them). */
  async function schemaOf(raw: Kysely<unknown>): Promise<unknown> {
    if (engine === 'postgres') {
      const columns = await sql`select table_name, column_name, ordinal_position, data_type, is_nullable, column_default from information_schema.columns
        where table_schema = 'public' order by table_name, ordinal_position`.execute(raw);
      const constraints = await sql`select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as definition from pg_constraint
        where connamespace = 'public'::regnamespace order by conrelid::regclass::text, conname`.execute(raw);
      const indexes = await sql`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`.execute(raw);
      return { columns: columns.rows, constraints: constraints.rows, indexes: indexes.rows };
    }
    const { rows: objects } = await sql<{ type: string; name: string; tbl_name: string }>`select type, name, tbl_name from sqlite_master
      where name not like 'sqlite_autoindex_%' order by type, name`.execute(raw);
    const tables: Record<string, unknown> = {};
    for (const { name } of objects.filter((object) => object.type === 'table')) {
      const { rows: indexList } = await sql<{ name: string; unique: number; origin: string; partial: number }>`select * from pragma_index_list(${name})`.execute(raw);
      const indexes = [];
      for (const index of indexList) {
        const { rows: indexColumns } = await sql<{ name: string }>`select name from pragma_index_info(${index.name}) order by seqno`.execute(raw);
        // An automatic index's name follows the order the table's constraints were made in: its columns identify it.
        indexes.push({ name: index.origin === 'c' ? index.name : index.origin, unique: index.unique, partial: index.partial, columns: indexColumns.map((column) => column.name) });
      }
      tables[name] = {
        columns: (await sql`select * from pragma_table_info(${name}) order by cid`.execute(raw)).rows,
        foreignKeys: (await sql`select "table", "from", "to", on_update, on_delete from pragma_foreign_key_list(${name}) order by id, seq`.execute(raw)).rows,
        indexes: indexes.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      };
    }
    return { objects, tables };
  }

  const eventsOf = async (raw: Kysely<unknown>) => (await sql<{ event_id: string; object_id: string }>`select * from webhook_events order by event_id`.execute(raw)).rows;
  const attemptsOf = async (raw: Kysely<unknown>) => (await sql`select * from webhook_attempts order by event_id, attempt_number`.execute(raw)).rows;

  test("down gives back 0023's schema and rows, and the events written since in 0023's form (`<id>.<version>` for repeats and subscriptions)", async () => {
    const database = await createTestDatabase(engine);
    const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile, poolSize: 2 });
    const raw = db as unknown as Kysely<unknown>;
    const at = (seconds: number) => new Date(Date.parse(CREATED) + seconds * 1000);
    try {
      await migrateStepByStep(raw, '0023_ephemeral_key_issuer');
      await sql`insert into accounts (account_id, slug, name, settings, created_at) values ('acc_m', 'm', 'M', '{}', ${CREATED})`.execute(raw);
      // As 0023's outbox wrote them: a payment's first event of a type under its id, a repeat under <id>.<version>,
      // every subscription event under <id>.<version>.
      const rows: [string, string, string, string, Record<string, unknown>][] = [
        ['evt_1', 'payment', 'pay_a', 'payment_captured', { payment_id: 'pay_a' }],
        ['evt_2', 'payment', 'pay_a.7', 'payment_captured', { payment_id: 'pay_a' }],
        ['evt_3', 'payment', 'pay_a', 'payment_authorized', { payment_id: 'pay_a' }],
        ['evt_4', 'subscription', 'sub_b.3', 'subscription_paused', { id: 'sub_b' }],
        ['evt_5', 'subscription', 'sub_b.4', 'subscription_active', { id: 'sub_b' }],
        ['evt_6', 'refund', 'ref_c', 'refund_succeeded', { refund_id: 'ref_c' }],
        // A repeat written in the same millisecond as the first, whose event id sorts before the first's.
        ['evt_6a', 'payment', 'pay_e.5', 'payment_captured', { payment_id: 'pay_e' }],
        ['evt_6b', 'payment', 'pay_e', 'payment_captured', { payment_id: 'pay_e' }],
      ];
      const secondsOf = (eventId: string, index: number) => (eventId.startsWith('evt_6') ? 5 : index);
      for (const [index, [eventId, objectType, objectId, eventType, object]] of rows.entries()) {
        const payload = JSON.stringify({ event_id: eventId, event_type: eventType, content: { object } });
        await sql`insert into webhook_events (event_id, account_id, mode, event_type, object_type, object_id, payload, delivery_status, attempt_count, next_attempt_at,
            created_at, updated_at, scheduled_attempt_count, last_attempt_at, failure_reason)
          values (${eventId}, 'acc_m', 'test', ${eventType}, ${objectType}, ${objectId}, ${payload}, 'pending', 1, ${at(index + 60).toISOString()},
            ${at(secondsOf(eventId, index)).toISOString()}, ${at(index).toISOString()}, 1, ${at(index).toISOString()}, null)`.execute(raw);
      }
      for (const eventId of ['evt_2', 'evt_4']) {
        await sql`insert into webhook_attempts (account_id, mode, event_id, attempt_number, trigger, url, attempted_at, status_code, error, duration_ms, response_body, succeeded)
          values ('acc_m', 'test', ${eventId}, 1, 'scheduled', 'http://127.0.0.1/', ${CREATED}, 500, null, 5, 'no', 0)`.execute(raw);
      }
      const schema0023 = await schemaOf(raw);
      const events0023 = await eventsOf(raw);
      const attempts0023 = await attemptsOf(raw);

      await migrateStepByStep(raw, '0024_event_object_version');
      // Written by the outbox at 0024: a payment's third capture, a subscription paused again, a new payment's first event.
      const outbox = eventsSqlStores(db).outbox;
      const written = async (eventId: string, objectType: 'payment' | 'subscription', objectId: string, eventType: string, objectVersion: number, seconds: number) => {
        const object = objectType === 'payment' ? { payment_id: objectId } : { id: objectId };
        const payload = { event_id: eventId, event_type: eventType, content: { object } };
        expect(await outbox.insertEvent({ eventId, accountId: 'acc_m', mode: 'test', eventType, objectType, objectId, objectVersion, payload, createdAt: at(seconds) })).toBe('inserted');
      };
      await written('evt_7', 'payment', 'pay_a', 'payment_captured', 9, 10);
      await written('evt_8', 'subscription', 'sub_b', 'subscription_paused', 5, 11);
      await written('evt_9', 'payment', 'pay_d', 'payment_succeeded', 2, 12);

      // Down to 0023: its down runs.
      await migrateStepByStep(raw, '0023_ephemeral_key_issuer');
      expect(await schemaOf(raw)).toEqual(schema0023);
      const events = await eventsOf(raw);
      expect(events.slice(0, rows.length)).toEqual(events0023);
      expect(events.slice(rows.length).map((row) => [row.event_id, row.object_id])).toEqual([
        ['evt_7', 'pay_a.9'],
        ['evt_8', 'sub_b.5'],
        ['evt_9', 'pay_d'],
      ]);
      expect(await attemptsOf(raw)).toEqual(attempts0023);
      if (engine === 'sqlite') expect((await sql`pragma foreign_key_check`.execute(raw)).rows).toEqual([]);

      // And up again.
      await migrateStepByStep(raw);
      const again = await sql<{ event_id: string; object_id: string; object_version: number }>`select event_id, object_id, object_version from webhook_events order by event_id`.execute(raw);
      expect(again.rows.map((row) => [row.event_id, row.object_id, Number(row.object_version)])).toEqual([
        ['evt_1', 'pay_a', 0],
        ['evt_2', 'pay_a', 7],
        ['evt_3', 'pay_a', 0],
        ['evt_4', 'sub_b', 3],
        ['evt_5', 'sub_b', 4],
        ['evt_6', 'ref_c', 0],
        ['evt_6a', 'pay_e', 5],
        ['evt_6b', 'pay_e', 0],
        ['evt_7', 'pay_a', 9],
        ['evt_8', 'sub_b', 5],
        ['evt_9', 'pay_d', 0],
      ]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
