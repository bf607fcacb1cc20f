/**
 * The watch of the key look-up's tables on PostgreSQL (storage/postgres-table-watch.ts), on a database of its own:
 * - nothing may be kept until its listening connection has heard its own heartbeat;
 * - a commit by another session that changes a watched table moves the generation (migration 0019's triggers), one
 *   that changes another table, or a rolled-back change, does not;
 * - on a client it watches, a COMMIT that wrote a watched table has moved the generation by the time it resolves;
 *   a transaction that only read one has not;
 * - a listening connection that is terminated stops the keeping, and the watch listens again on a new one, under a
 *   new generation;
 * - a listening connection whose heartbeats stop coming back (as behind a pooler that drops LISTEN) stops the keeping
 *   within HEARTBEAT_STALE_MS, and the watch listens again on a new one.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { onPostgres } from '../test-support/engines';
import { queryOnOwnClient, withOwnConnection } from '../test-support/harness';
import { SqlStore } from './sql-store';
import { KEY_LOOKUP_TABLES } from './accounts/key-lookup-cache';
import { HEARTBEAT_STALE_MS, PostgresTableWatch } from './postgres-table-watch';

const LISTENER = 'rail table watch test';

onPostgres('the key look-up tables watch on PostgreSQL', (database) => {
  let watch: PostgresTableWatch;
  const clients: pg.Client[] = [];

  /** A client of its own, connected, closed after the suite. */
  async function newClient(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database().databaseUrl });
    clients.push(client);
    await client.connect();
    return client;
  }

  /** Runs statements on a client of their own, each committed on its own unless they say otherwise. */
  const run = async (...statements: string[]) => {
    const client = await newClient();
    for (const statement of statements) await client.query(statement);
  };

  const listening = () => vi.waitFor(() => expect(watch.generation()).toBeTypeOf('number'), { timeout: 5000, interval: 10 });

  beforeAll(async () => {
    await withOwnConnection(database(), (db) => new SqlStore(db, 'postgres').migrate(), { keyLookups: false });
    watch = new PostgresTableWatch(KEY_LOOKUP_TABLES, {
      connect: () => new pg.Client({ connectionString: database().databaseUrl, application_name: LISTENER }),
    });
  });
  afterAll(async () => {
    await watch?.stop();
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  });

  test('keeps nothing until its listening connection has heard its own heartbeat', async () => {
    expect(watch.generation()).toBeUndefined();
    watch.start();
    expect(watch.generation()).toBeUndefined();
    await listening();
  });

  test('another session changing a watched table moves the generation; another table, or a rollback, does not', async () => {
    await listening();
    const before = watch.generation()!;
    // In commit order: the notifications of the watched change come after anything the first two would have sent.
    await run(
      `update payments set amount = amount where false`,
      `begin`,
      `update api_keys set name = name where false`,
      `rollback`,
      `update business_profiles set name = name where false`,
    );
    await vi.waitFor(() => expect(watch.generation()).toBeGreaterThan(before), { timeout: 5000, interval: 5 });
    // Heartbeats keep coming back meanwhile; none of them moves it.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(watch.generation()).toBe(before + 1);
    for (const table of ['accounts', 'api_keys']) {
      const current = watch.generation()!;
      await run(`delete from ${table} where false`);
      await vi.waitFor(() => expect(watch.generation()).toBe(current + 1), { timeout: 5000, interval: 5 });
    }
  });

  test('on a watched client, a COMMIT that wrote a watched table has moved the generation when it resolves', async () => {
    await listening();
    const client = await newClient();
    watch.watchClient(client);
    const before = watch.generation()!;
    await client.query('begin');
    await client.query('select "key_id" from "api_keys" for key share');
    await client.query('update "payments" set "amount" = "amount" where false');
    await client.query('commit');
    expect(watch.generation()).toBe(before);
    await client.query('begin');
    await client.query('update "api_keys" set "name" = "name" where false');
    expect(watch.generation()).toBe(before);
    await client.query('commit');
    // Moved by the COMMIT's answer itself, before the notification the same commit sends has come back.
    expect(watch.generation()).toBeGreaterThan(before);
    const afterTransaction = watch.generation()!;
    await client.query('update "accounts" set "name" = "name" where false');
    expect(watch.generation()).toBeGreaterThan(afterTransaction);
  });

  test('a terminated listening connection stops the keeping; the watch listens again under a new generation', async () => {
    await listening();
    const before = watch.generation()!;
    const [terminated] = await queryOnOwnClient<{ terminated: boolean }>(
      database(),
      'select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = $1 and datname = current_database()',
      [LISTENER],
    );
    expect(terminated?.terminated).toBe(true);
    await vi.waitFor(() => expect(watch.generation()).toBeUndefined(), { timeout: 5000, interval: 5 });
    await listening();
    expect(watch.generation()).toBeGreaterThan(before);
  });

  test('keeps nothing once its heartbeats stop coming back, and listens again on a new connection', async () => {
    let swallowHeartbeats = false;
    const lossy = new PostgresTableWatch(KEY_LOOKUP_TABLES, {
      connect: () => {
        const client = new pg.Client({ connectionString: database().databaseUrl });
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        // What a pooler in transaction mode does to LISTEN: the heartbeat is sent, and never heard.
        (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) =>
          swallowHeartbeats && typeof args[0] === 'string' && args[0].startsWith('select pg_notify') ? Promise.resolve({ rows: [] }) : query(...args);
        return client;
      },
    });
    try {
      lossy.start();
      await vi.waitFor(() => expect(lossy.generation()).toBeTypeOf('number'), { timeout: 5000, interval: 10 });
      swallowHeartbeats = true;
      const stoppedAt = Date.now();
      await vi.waitFor(() => expect(lossy.generation()).toBeUndefined(), { timeout: HEARTBEAT_STALE_MS + 3000, interval: 20 });
      expect(Date.now() - stoppedAt).toBeGreaterThan(HEARTBEAT_STALE_MS - 1500);
      swallowHeartbeats = false;
      await vi.waitFor(() => expect(lossy.generation()).toBeTypeOf('number'), { timeout: 10_000, interval: 20 });
    } finally {
      await lossy.stop();
    }
  }, 20_000);
});
