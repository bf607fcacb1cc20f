/**
 * API key look-ups kept in memory on SQLite (storage/accounts/key-lookup-cache.ts): a second look-up is the kept,
 * frozen answer; a key revoked through this process, or by another connection to the file, is read again on the
 * very next look-up; a rolled-back write leaves no trace; an unknown key is not kept. PostgreSQL keeps nothing.
 * (What is read while this connection holds an uncommitted write is not kept: sqlite-table-watch.test.ts.)
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
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

  test(engine === 'sqlite' ? 'a second look-up is the kept answer, frozen' : 'nothing is kept: each look-up reads the database', async () => {
    const key = await newKey();
    const first = await h.store.apiKeys.findApiKeyByHash(key.keyHash);
    const second = await h.store.apiKeys.findApiKeyByHash(key.keyHash);
    expect(second).toEqual(first);
    if (engine === 'sqlite') {
      expect(second).toBe(first);
      expect(Object.isFrozen(second!.account.settings)).toBe(true);
      expect(() => (second!.key.scopes as string[]).push('payments:write')).toThrow(TypeError);
    } else {
      expect(second).not.toBe(first);
    }
  });

  test('a key revoked through this process is read as revoked on the next look-up', async () => {
    const key = await newKey();
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toBeNull();
    await h.store.apiKeys.findApiKeyByHash(key.keyHash);
    const revokedAt = new Date('2025-01-02T00:00:00.000Z');
    expect(await h.store.apiKeys.endApiKey(key.accountId, key.keyId, { revokedAt })).toBe(true);
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toEqual(revokedAt);
  });

  test('a key revoked by another connection to the database is read as revoked on the next look-up', async () => {
    const key = await newKey();
    await h.store.apiKeys.findApiKeyByHash(key.keyHash);
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toBeNull();
    const revokedAt = new Date('2025-01-03T00:00:00.000Z');
    await withOwnConnection(h.database, async (db) => {
      expect(await new SqlStore(db, engine).apiKeys.endApiKey(key.accountId, key.keyId, { revokedAt })).toBe(true);
    });
    expect((await h.store.apiKeys.findApiKeyByHash(key.keyHash))?.key.revokedAt).toEqual(revokedAt);
  });

  test('a revocation rolled back leaves the key usable', async () => {
    const key = await newKey();
    await h.store.apiKeys.findApiKeyByHash(key.keyHash);
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

  test('an unknown key is not kept: once inserted it is found', async () => {
    const hash = hashOf(`cache-test-unknown-${engine}`);
    expect(await h.store.apiKeys.findApiKeyByHash(hash)).toBeUndefined();
    const key = await newKey();
    expect(await h.store.apiKeys.findApiKeyByHash(key.keyHash)).toBeDefined();
  });
});
