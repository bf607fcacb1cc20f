/**
 * startServer() in process, around the vault key: it is read while the store opens and migrates, so a start whose
 * key file is malformed fails after the store is open. Such a start rejects with the key's error, never as an
 * unhandled rejection, and leaves no database connection behind it (on PostgreSQL a pooled connection would keep
 * the process alive). A well-formed key file starts the server with that key. On PostgreSQL, RAIL_PG_POOL_SIZE bounds
 * the connections the server opens under concurrent requests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { startServer } from './start';
import { forEachEngine, onPostgres } from './test-support/engines';
import { FIXED_SECRET_KEY } from './test-support/server-process';
import { createTestDatabase, queryOnOwnClient, type TestDatabase } from './test-support/harness';
import { VAULT_KEY_FILE } from './vault/vault-cipher';

/** Other backends on the test database (PostgreSQL), once the count has settled at 0 or after 3 s. */
async function backendsOn(database: TestDatabase): Promise<number> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const [row] = await queryOnOwnClient<{ count: string }>(
      database,
      'select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const count = Number(row?.count);
    if (count === 0 || Date.now() > deadline) return count;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

/** A server's configuration on loopback with ports of the system's choosing, quiet and without rate limits. */
function configFor(dataDir: string, databaseUrl: string, more: Record<string, string> = {}) {
  return loadConfig({
    RAIL_HOST: '127.0.0.1',
    RAIL_PORT: '0',
    RAIL_JS_PORT: '0',
    RAIL_DATA_DIR: dataDir,
    RAIL_LOG_LEVEL: 'silent',
    RAIL_RATE_LIMITS: 'off',
    DATABASE_URL: databaseUrl,
    ...more,
  });
}

forEachEngine('startServer and the vault key file', (engine) => {
  async function withStart(vaultKeyFile: string, check: (start: ReturnType<typeof startServer>, database: TestDatabase) => Promise<void>) {
    const database = await createTestDatabase(engine);
    const dataDir = mkdtempSync(join(tmpdir(), 'rail-start-'));
    const distDir = mkdtempSync(join(tmpdir(), 'rail-start-dist-'));
    writeFileSync(join(dataDir, VAULT_KEY_FILE), vaultKeyFile);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const config = configFor(dataDir, database.databaseUrl ?? '');
      await check(startServer({ config, logger: createLogger('silent'), distDir, demoPagePaths: [] }), database);
      // A rejection that nobody handled in time is reported on the next turns of the event loop.
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(distDir, { recursive: true, force: true });
    }
  }

  test('a malformed key file fails the start with its error and leaves no connection open', async () => {
    await withStart('not a key\n', async (start, database) => {
      await expect(start).rejects.toThrow(`${VAULT_KEY_FILE}: the vault key file`);
      if (engine === 'postgres') expect(await backendsOn(database)).toBe(0);
    });
  });

  test('a well-formed key file starts the server, which answers /health', async () => {
    await withStart(`${Buffer.alloc(32, 7).toString('base64')}\n`, async (start) => {
      const running = await start;
      try {
        expect((await fetch(`${running.baseUrl}/health`)).status).toBe(200);
      } finally {
        await running.stop();
      }
    });
  });
});

onPostgres('startServer and RAIL_PG_POOL_SIZE', (database) => {
  test('the server opens at most RAIL_PG_POOL_SIZE connections to PostgreSQL, however many requests come at once', async () => {
    const applicationName = `rail_pool_size_${process.pid}`;
    const url = new URL(database().databaseUrl!);
    // The pool's connections carry the URL's name, and so would the key look-ups' listener: it is off here.
    url.searchParams.set('application_name', applicationName);
    const dataDir = mkdtempSync(join(tmpdir(), 'rail-start-'));
    const distDir = mkdtempSync(join(tmpdir(), 'rail-start-dist-'));
    const config = configFor(dataDir, url.toString(), { RAIL_TEST_SECRET_KEY: FIXED_SECRET_KEY, RAIL_PG_POOL_SIZE: '3', RAIL_PG_KEY_LOOKUPS: 'off' });
    const running = await startServer({ config, logger: createLogger('silent'), distDir, demoPagePaths: [] });
    try {
      // Each create is a durable commit that holds its connection until PostgreSQL has flushed it: forty at once keep
      // several busy, and a pool of the default size opens more than three for them.
      const body = JSON.stringify({ amount: 1000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } });
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${running.baseUrl}/payments`, { method: 'POST', headers: { 'api-key': FIXED_SECRET_KEY, 'content-type': 'application/json' }, body }).then((response) => response.status),
        ),
      );
      expect(statuses).toEqual(Array.from({ length: 40 }, () => 200));
      const [row] = await queryOnOwnClient<{ count: string }>(database(), 'select count(*) from pg_stat_activity where application_name = $1', [applicationName]);
      // Three on a machine of this kind (five with the default size); two if the burst happened to keep fewer busy.
      expect(Number(row?.count)).toBeLessThanOrEqual(3);
      expect(Number(row?.count)).toBeGreaterThanOrEqual(2);
    } finally {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(distDir, { recursive: true, force: true });
    }
  });
});
