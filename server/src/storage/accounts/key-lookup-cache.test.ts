/**
 * API key look-ups kept in memory (storage/accounts/key-lookup-cache.ts): a second look-up is the kept, frozen
 * answer (on PostgreSQL once the watch listens: postgres-table-watch.test.ts); a key revoked through this process is
 * read again on the very next look-up; one revoked by another connection, on the next look-up on SQLite and as soon
 * as its notification has arrived on PostgreSQL; a rolled-back write leaves no trace; an unknown key is not kept;
 * with look-ups off on PostgreSQL (RAIL_PG_KEY_LOOKUPS=off), each reads the database.
 * (What is read while this connection holds an uncommitted write is not kept: sqlite-table-watch.test.ts.)
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { SqlStore } from '../sql-store';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, withOwnConnection, type Harness } from '../../test-support/harness';
import type { ApiKeyRecord } from './records';

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

forEachEngine('API key look-ups', (engine) => {
  let h: Harness;
  let seq = 0;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A new unrevoked secret key of the test account, inserted through the harness's store. */
  async function newKey(): Promise<ApiKeyRecord> {
    seq += 1;
    const record: ApiKeyRecord = {
      keyId: `key_cache${engine}${seq}`,
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType: 'full',
      name: `cache test ${seq}`,
      prefix: 'rail_full_test_',
      keyHash: hashOf(`cache-test-key-${engine}-${seq}`),
      createdAt: new Date('2025-01-01T00:00:00.000Z'),
      revokedAt: null,
      expiresAt: null,
      scopes: ['payments:read'],
      replacesKeyId: null,
    };
    await h.store.apiKeys.insertApiKey(record);
    return record;
  }

  /**
   * Looks the key up until a second look-up is the first one's kept answer, and returns it: at once on SQLite; on
   * PostgreSQL once the watch's connection listens, right after the harness opened the database.
   */
  async function keptAnswer(keyHash: string) {
    return vi.waitFor(
      async () => {
        const first = await h.store.apiKeys.findApiKeyByHash(keyHash);
        const second = await h.store.apiKeys.findApiKeyByHash(keyHash);
        expect(second).toBeDefined();
        expect(second).toBe(first);
        return second!;
      },
      { timeout: engine === 'sqlite' ? 50 : 5000, interval: 10 },
    );
  }

  test('a second look-up is the kept answer, frozen', async () => {
    const key = await newKey();
    const kept = await keptAnswer(key.keyHash);
    expect(kept.key.keyId).toBe(key.keyId);
    expect(Object.isFrozen(kept.account.settings)).toBe(true);
    expect(() => (kept.key.scopes as string[]).push('payments:write')).toThrow(TypeError);
  });

  test("writing an event, whose insert reads the account's webhook settings, keeps what was kept", async () => {
    const key = await newKey();
    let attempt = 0;
    // On PostgreSQL the notification of the key's own insert arrives on its own time and may drop the kept answer
    // after keptAnswer saw it: another event and look-up then settle it. An insert that dropped kept answers itself
    // (as any mention of `accounts` did) never would.
    await vi.waitFor(
      async () => {
        const kept = await keptAnswer(key.keyHash);
        const eventId = `evt_cache${engine}${seq}_${(attempt += 1)}`;
        const created = new Date('2025-01-01T00:00:00.000Z');
        const event = { eventId, accountId: key.accountId, mode: 'test' as const, eventType: 'payment_succeeded' as const, objectType: 'payment' as const, objectId: `pay_${eventId}`, objectVersion: 0, createdAt: created, payload: { event_id: eventId } };
        expect(await h.store.outbox.insertEvent(event)).toBe('inserted');
        expect(await h.store.apiKeys.findApiKeyByHash(key.keyHash)).toBe(kept);
      },
      { timeout: 5000, interval: 50 },
    );
  });

  test('a key revoked through this process is read as revoked on the next look-up', async () => {
    const key = await newKey();
    expect((await keptAnswer(key.keyHash)).key.revokedAt).toBeNull();
    const revokedAt = new Date('2025-01-02T00:00:00.000Z');
    expect(await h.store.apiKeys.endApiKey(key.accountId, key.keyId, { revokedAt })).toBe(true);
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toEqual(revokedAt);
  });

  test(
    engine === 'sqlite'
      ? 'a key revoked by another connection to the database is read as revoked on the next look-up'
      : 'a key revoked by another connection to the database is read as revoked once its notification has arrived',
    async () => {
      const key = await newKey();
      expect((await keptAnswer(key.keyHash)).key.revokedAt).toBeNull();
      const revokedAt = new Date('2025-01-03T00:00:00.000Z');
      await withOwnConnection(h.database, async (db) => {
        expect(await new SqlStore(db, engine).apiKeys.endApiKey(key.accountId, key.keyId, { revokedAt })).toBe(true);
      });
      const revokedAtNow = async () => (await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt;
      if (engine === 'sqlite') expect(await revokedAtNow()).toEqual(revokedAt);
      else await vi.waitFor(async () => expect(await revokedAtNow()).toEqual(revokedAt), { timeout: 2000, interval: 1 });
    },
  );

  test('a revocation rolled back leaves the key usable', async () => {
    const key = await newKey();
    await keptAnswer(key.keyHash);
    await expect(
      h.store.transaction(async (tx) => {
        await tx.apiKeys.endApiKey(key.accountId, key.keyId, { revokedAt: new Date('2025-01-04T00:00:00.000Z') });
        expect((await tx.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).not.toBeNull();
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toBeNull();
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toBeNull();
  });

  test.skipIf(engine !== 'postgres')('with key look-ups off (RAIL_PG_KEY_LOOKUPS=off), every look-up reads the database', async () => {
    const key = await newKey();
    await keptAnswer(key.keyHash);
    await withOwnConnection(
      h.database,
      async (db) => {
        const store = new SqlStore(db, engine);
        // Longer than a watch takes to listen (keptAnswer above): with one, the second look-up would be the first's.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const first = await store.apiKeys.findApiKeyByHash(key.keyHash);
        const second = await store.apiKeys.findApiKeyByHash(key.keyHash);
        expect(second).toEqual(first);
        expect(second).not.toBe(first);
      },
      { keyLookups: false },
    );
  });

  test('an unknown key is not kept: once inserted it is found', async () => {
    const hash = hashOf(`cache-test-unknown-${engine}`);
    expect(await h.store.apiKeys.findApiKeyByHash(hash)).toBeUndefined();
    const key = await newKey();
    expect(await h.store.apiKeys.findApiKeyByHash(key.keyHash)).toBeDefined();
  });
});
