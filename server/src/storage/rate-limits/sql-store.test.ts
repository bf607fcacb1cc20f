/**
 * The shared rate-limit buckets in the store, on both engines: a burst of `limit` takes, then none until an interval
 * has passed; takes racing from two connections (two instances) never pass more than the bucket holds; a limit whose
 * interval is not a whole number of milliseconds still allows its whole burst; full buckets are deleted.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, withOwnConnection, type Harness } from '../../test-support/harness';
import { SqlRateLimitBucketStore } from './sql-store';

forEachEngine('Rate-limit bucket store', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const T0 = 1_735_689_600_000;
  const threePerMinute = (nowMs: number) => ({ nowMs, intervalMs: 20_000, windowMs: 60_000 });

  test('a burst of the limit, then refused (nothing written) until an interval has passed', async () => {
    const store = h.store.rateLimitBuckets;
    expect(await store.takeToken('burst', threePerMinute(T0))).toBe(T0 + 20_000);
    expect(await store.takeToken('burst', threePerMinute(T0))).toBe(T0 + 40_000);
    expect(await store.takeToken('burst', threePerMinute(T0))).toBe(T0 + 60_000);
    expect(await store.takeToken('burst', threePerMinute(T0 + 19_999))).toBeUndefined();
    expect(await store.takeToken('burst', threePerMinute(T0 + 20_000))).toBe(T0 + 80_000);
    expect(await store.takeToken('burst', threePerMinute(T0 + 20_000))).toBeUndefined();
    // A bucket full again starts over from now.
    expect(await store.takeToken('burst', threePerMinute(T0 + 600_000))).toBe(T0 + 620_000);
    expect(await store.takeToken('other', threePerMinute(T0))).toBe(T0 + 20_000);
  });

  test('an interval that is not a whole number of milliseconds (7 a minute): the whole burst, and not one more', async () => {
    const store = h.store.rateLimitBuckets;
    const take = () => store.takeToken('sevens', { nowMs: T0, intervalMs: 60_000 / 7, windowMs: 60_000 });
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await take());
    expect(results.filter((result) => result !== undefined)).toHaveLength(7);
    expect(results[7]).toBeUndefined();
  });

  test('takes racing from two connections pass exactly the limit', async () => {
    await withOwnConnection(h.database, (a) =>
      withOwnConnection(h.database, async (b) => {
        const stores = [new SqlRateLimitBucketStore(a), new SqlRateLimitBucketStore(b)];
        const rule = { nowMs: T0, intervalMs: 6_000, windowMs: 60_000 };
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.takeToken('race', rule)));
        expect(results.filter((result) => result !== undefined)).toHaveLength(10);
      }),
    );
  });

  test('deleteFullBuckets deletes the buckets full again, and only those', async () => {
    const store = h.store.rateLimitBuckets;
    await store.takeToken('full-soon', threePerMinute(T0 + 1_000_000));
    await store.takeToken('full-later', { nowMs: T0 + 1_000_000, intervalMs: 60_000, windowMs: 60_000 });
    await store.deleteFullBuckets(T0 + 1_020_000);
    const left = await h.db.selectFrom('rate_limit_buckets').select('bucket').execute();
    expect(left.map((row) => row.bucket)).toEqual(['full-later']);
  });
});
