/**
 * The PostgreSQL pool keeps the connections it has opened (storage/database.ts): a connection idle for longer than
 * pg's default idle timeout (10 s) is still there, so a load that returns after a lull does not open them again.
 * pg-pool's idle timer is a setTimeout, so faked timers run the 10 s; the connections are counted by PostgreSQL.
 */
import { afterAll, expect, test, vi } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from './database';
import { onPostgres } from '../test-support/engines';
import { queryOnOwnClient } from '../test-support/harness';

onPostgres('the PostgreSQL pool', (database) => {
  afterAll(() => {
    vi.useRealTimers();
  });

  /** The backends of this test's pool, as PostgreSQL lists them (its own admin connection aside). */
  async function poolBackends(applicationName: string): Promise<number> {
    const [row] = await queryOnOwnClient<{ count: string }>(database(), 'select count(*) from pg_stat_activity where application_name = $1', [applicationName]);
    return Number(row?.count);
  }

  test('keeps its connections open after they have been idle for longer than 10 s', async () => {
    const applicationName = `rail_pool_test_${process.pid}`;
    const url = new URL(database().databaseUrl!);
    url.searchParams.set('application_name', applicationName);
    // The key look-ups' listening connection (storage/postgres-table-watch.ts) would carry the URL's name too.
    const { db } = openDatabase({ databaseUrl: url.toString(), sqliteFile: database().sqliteFile, poolSize: 4, keyLookups: false });
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      // Four at once: the pool opens four connections, and arms an idle timer on each as it is released.
      await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.05)`.execute(db)));
      vi.advanceTimersByTime(60_000);
      vi.useRealTimers();
      // A closed connection's backend takes a moment to leave pg_stat_activity (with pg's default idle timeout, all
      // four had gone at the first look).
      await new Promise((resolveWait) => setTimeout(resolveWait, 300));
      expect(await poolBackends(applicationName)).toBe(4);
    } finally {
      vi.useRealTimers();
      await db.destroy();
    }
  });
});
