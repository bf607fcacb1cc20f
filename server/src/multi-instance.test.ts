/**
 * Two real server processes on one fresh PostgreSQL database (different ports): 50 concurrent confirms of one
 * payment, split across both. Exactly one answers 200 succeeded; every other answers 400 ERR_4003 (the payment is
 * no longer confirmable), and the payment has exactly one payment_succeeded outbox row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openDatabase } from './storage/database';
import { createTestDatabase, postgresReachable, TEST_DATABASE_URL } from './test-support/harness';
import { callApi, startServer, type ServerProcess } from './test-support/server-process';

const reachable = await postgresReachable();
if (!reachable) console.warn(`\n[rail] PostgreSQL is not reachable at ${TEST_DATABASE_URL}: the two-instance test is SKIPPED.\n`);

describe.skipIf(!reachable)('two instances on one PostgreSQL', () => {
  test('50 concurrent confirms of one payment across both: one 200 succeeded, 49 ERR_4003', async () => {
    const database = await createTestDatabase('postgres');
    const dirs = [mkdtempSync(join(tmpdir(), 'rail-a-')), mkdtempSync(join(tmpdir(), 'rail-b-'))];
    const servers: ServerProcess[] = [];
    try {
      // Start one first so the migrations and bootstrap run once, then the second on the same database.
      servers.push(await startServer({ dataDir: dirs[0] as string, databaseUrl: database.databaseUrl }));
      servers.push(await startServer({ dataDir: dirs[1] as string, databaseUrl: database.databaseUrl }));
      const [a, b] = servers as [ServerProcess, ServerProcess];
      for (let round = 0; round < 3; round += 1) {
        const created = await callApi(a.baseUrl, 'POST', '/payments', {
          amount: 2500,
          currency: 'INR',
          payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } },
        });
        expect(created.status).toBe(200);
        const paymentId = String(created.body['payment_id']);
        // Both instances see it.
        expect((await callApi(b.baseUrl, 'GET', `/payments/${paymentId}`)).status).toBe(200);

        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => callApi(i % 2 === 0 ? a.baseUrl : b.baseUrl, 'POST', `/payments/${paymentId}/confirm`, {})),
        );
        const winners = results.filter((r) => r.status === 200);
        expect(winners).toHaveLength(1);
        expect(winners[0]?.body['status']).toBe('succeeded');
        for (const loser of results.filter((r) => r.status !== 200)) {
          expect(loser.status).toBe(400);
          expect((loser.body['error'] as { code: string }).code).toBe('ERR_4003');
        }
        const final = await callApi(b.baseUrl, 'GET', `/payments/${paymentId}`);
        expect(final.body).toMatchObject({ status: 'succeeded', amount_received: 2500 });
        const { db } = openDatabase({ databaseUrl: database.databaseUrl, sqliteFile: '', poolSize: 1 });
        try {
          const events = await db.selectFrom('webhook_events').select('event_type').where('object_id', '=', paymentId).execute();
          expect(events.map((e) => e.event_type)).toEqual(['payment_succeeded']);
        } finally {
          await db.destroy();
        }
      }
    } finally {
      await Promise.all(servers.map((s) => s.kill()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  }, 90_000);
});
