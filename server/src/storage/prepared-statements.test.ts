/**
 * On PostgreSQL the statements compiled once (storage/compiled-query.ts) run as named prepared statements of each
 * pooled connection (storage/prepared-statements.ts), and answer as before; other queries stay unnamed. Each
 * connection asks PostgreSQL to describe such a statement's rows at its first execution only.
 */
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import type Pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine, onPostgres } from '../test-support/engines';
import { createHarness, withOwnConnection, type Harness } from '../test-support/harness';
import { keepPrepared, preparedNameOf, sendPreparedByName } from './prepared-statements';
import { SqlRailLedgerStore } from './recovery/sql-store';

const pg = createRequire(import.meta.url)('pg') as typeof Pg;

forEachEngine('Prepared statements', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  test.runIf(engine === 'postgres')('a statement compiled once is prepared by name on its connection and answers as before', async () => {
    await withOwnConnection(h.database, async (db) => {
      const ledger = new SqlRailLedgerStore(db);
      const key = (reference: string) => ({ accountId: h.boot.account.accountId, mode: 'test' as const, rail: 'upi', operation: 'authorize', reference });
      const now = new Date('2025-01-01T00:00:00.000Z');
      expect(await ledger.rememberRailAnswer(key('prepared-1'), { kind: 'pending' }, now)).toEqual({ kind: 'pending' });
      expect(await ledger.rememberRailAnswer(key('prepared-2'), { kind: 'succeeded' }, now)).toEqual({ kind: 'succeeded' });
      expect(await ledger.rememberRailAnswer(key('prepared-1'), { kind: 'failed' }, now)).toEqual({ kind: 'pending' });
      await db.selectFrom('accounts').select('account_id').execute();
      const prepared = (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db)).rows;
      expect(prepared.filter((row) => row.statement.startsWith('insert into "rail_ledger"')).map((row) => row.name)).toEqual([expect.stringMatching(/^rail_\d+$/)]);
      expect(prepared.some((row) => row.statement.includes('from "accounts"'))).toBe(false);
    });
  });

  test.runIf(engine === 'postgres')('with preparedStatements false (RAIL_PG_PREPARED_STATEMENTS=off) nothing is prepared', async () => {
    await withOwnConnection(h.database, async (db) => {
      const ledger = new SqlRailLedgerStore(db);
      const key = { accountId: h.boot.account.accountId, mode: 'test' as const, rail: 'upi', operation: 'authorize', reference: 'unprepared-1' };
      expect(await ledger.rememberRailAnswer(key, { kind: 'pending' }, new Date('2025-01-01T00:00:00.000Z'))).toEqual({ kind: 'pending' });
      expect((await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)).rows).toEqual([]);
    }, { preparedStatements: false });
  });
});

/** A pg client whose statements kept prepared go by name, and the messages PostgreSQL sent it that describe rows. */
async function preparedClient(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  sendPreparedByName(client as unknown as Parameters<typeof sendPreparedByName>[0], pg.Query);
  const messages = { rowDescription: 0, noData: 0 };
  const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
  connection.on('rowDescription', () => (messages.rowDescription += 1));
  connection.on('noData', () => (messages.noData += 1));
  return { client, messages };
}

onPostgres('Statements kept prepared, described once per connection', (database) => {
  const SELECT = 'select id, label, amount, created_at, extra from prepared_probe where id = $1 or $1 = 0 order by id';
  const INSERT = 'insert into prepared_probe (id, label, amount, created_at, extra) values ($1, $2, $3, $4, $5)';
  const INSERT_RETURNING = `${INSERT} returning id, label`;
  let plain: Pg.Client;
  let databaseUrl: string;

  beforeAll(async () => {
    for (const text of [SELECT, INSERT, INSERT_RETURNING]) keepPrepared(text);
    databaseUrl = database().databaseUrl as string;
    plain = new pg.Client({ connectionString: databaseUrl });
    await plain.connect();
    await plain.query('create table prepared_probe (id int primary key, label text, amount int8, created_at timestamptz, extra jsonb)');
    await plain.query(`insert into prepared_probe values (1, 'one', 100, '2026-12-07T00:00:00Z', '{"a":1}'), (2, null, null, null, null)`);
  });
  afterAll(() => plain?.end());

  test('a statement that returns rows is described at its first execution only, and answers what an unprepared one does', async () => {
    const { client, messages } = await preparedClient(databaseUrl);
    try {
      for (const id of [1, 2, 0, 3, 1]) {
        const prepared = await client.query(SELECT, [id]);
        // The same text with a space more is not kept prepared: pg runs it unnamed, described, on the plain client.
        const unprepared = await plain.query(`${SELECT} `, [id]);
        expect(prepared.rows).toEqual(unprepared.rows);
        expect(prepared.fields.map((field) => [field.name, field.dataTypeID])).toEqual(unprepared.fields.map((field) => [field.name, field.dataTypeID]));
        expect([prepared.command, prepared.rowCount]).toEqual([unprepared.command, unprepared.rowCount]);
      }
      expect((await client.query(SELECT, [1])).rows).toEqual([{ id: 1, label: 'one', amount: '100', created_at: new Date('2026-12-07T00:00:00Z'), extra: { a: 1 } }]);
      expect(messages.rowDescription).toBe(1);
      const named = await client.query('select name from pg_prepared_statements');
      expect(named.rows).toEqual([{ name: preparedNameOf(SELECT) }]);
    } finally {
      await client.end();
    }
  });

  test('a statement that returns no rows is described once too, and each execution still writes', async () => {
    const { client, messages } = await preparedClient(databaseUrl);
    try {
      for (const id of [10, 11, 12]) {
        const result = await client.query(INSERT, [id, `label ${id}`, id * 100, '2026-12-07T01:00:00Z', { id }]);
        expect([result.command, result.rowCount, result.rows]).toEqual(['INSERT', 1, []]);
      }
      expect(messages).toEqual({ rowDescription: 0, noData: 1 });
      const written = await plain.query('select id, amount, extra from prepared_probe where id >= 10 order by id');
      expect(written.rows).toEqual([10, 11, 12].map((id) => ({ id, amount: String(id * 100), extra: { id } })));
    } finally {
      await client.end();
    }
  });

  test('a failed execution learns nothing, and a failure after the description is known leaves the statement working', async () => {
    const { client, messages } = await preparedClient(databaseUrl);
    try {
      const insert = (id: number) => client.query(INSERT_RETURNING, [id, `returning ${id}`, null, null, null]);
      // The first execution on this connection fails (id 1 exists): its description is not kept.
      await expect(insert(1)).rejects.toMatchObject({ code: '23505' });
      expect((await insert(20)).rows).toEqual([{ id: 20, label: 'returning 20' }]);
      expect(messages.rowDescription).toBe(2);
      await expect(insert(20)).rejects.toMatchObject({ code: '23505', stack: expect.stringContaining('prepared-statements.test.ts') });
      expect((await insert(21)).rows).toEqual([{ id: 21, label: 'returning 21' }]);
      expect(messages.rowDescription).toBe(2);
    } finally {
      await client.end();
    }
  });

  test('each connection describes the statement for itself', async () => {
    const [first, second] = await Promise.all([preparedClient(databaseUrl), preparedClient(databaseUrl)]);
    try {
      for (const { client } of [first, second, first, second]) expect((await client.query(SELECT, [1])).rows).toHaveLength(1);
      expect([first.messages.rowDescription, second.messages.rowDescription]).toEqual([1, 1]);
    } finally {
      await Promise.all([first.client.end(), second.client.end()]);
    }
  });
});
