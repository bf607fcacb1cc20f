import { expect, test } from 'vitest';
import { cryptoIds, derivedIds, hmacBase62, randomBase62, timeBase62, type IdGenerator } from './ids';

/** Counts what it is asked, so a test can see which calls reach the base generator. */
function countingBase(): IdGenerator & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    id: (kind) => {
      calls.push(kind);
      return cryptoIds.id(kind);
    },
    secret: (length) => {
      calls.push(`secret:${length}`);
      return cryptoIds.secret(length);
    },
  };
}

test('the n-th id of each derived kind is a function of the seed: two generators with one seed give the same sequence', () => {
  const first = derivedIds('acc|test|secret|key-1|fp', cryptoIds);
  const second = derivedIds('acc|test|secret|key-1|fp', cryptoIds);
  const run = (ids: IdGenerator) => [ids.id('payment'), ids.id('refund'), ids.id('payment'), ids.id('customer')];
  const ids = run(first);
  expect(run(second)).toEqual(ids);
  expect(ids[0]).toMatch(/^pay_[A-Za-z0-9]{20}$/);
  expect(ids[1]).toMatch(/^ref_[A-Za-z0-9]{20}$/);
  expect(ids[2]).not.toBe(ids[0]);
});

test('each kind counts on its own: a refund drawn first does not move the payments', () => {
  const plain = derivedIds('seed', cryptoIds);
  const withRefundFirst = derivedIds('seed', cryptoIds);
  withRefundFirst.id('refund');
  expect(withRefundFirst.id('payment')).toBe(plain.id('payment'));
});

test('another seed derives other ids', () => {
  expect(derivedIds('seed-a', cryptoIds).id('payment')).not.toBe(derivedIds('seed-b', cryptoIds).id('payment'));
});

test('events, attempts, keys and secrets come from the base generator, random as before', () => {
  const base = countingBase();
  const ids = derivedIds('seed', base);
  const again = derivedIds('seed', base);
  const event = ids.id('event');
  expect(event).not.toBe(again.id('event'));
  ids.id('attempt');
  ids.id('apiKey');
  ids.secret(24);
  ids.id('payment');
  expect(base.calls).toEqual(['event', 'event', 'attempt', 'apiKey', 'secret:24']);
});

test('cryptoIds draws every id at random', () => {
  expect(cryptoIds.id('payment')).not.toBe(cryptoIds.id('payment'));
  expect(cryptoIds.id('payment')).toMatch(/^pay_[A-Za-z0-9]{20}$/);
});

test('payments, attempts, events and refunds get ids that start with the time: a later id sorts after an earlier one, byte for byte', async () => {
  for (const kind of ['payment', 'attempt', 'event', 'refund'] as const) {
    const earlier = cryptoIds.id(kind);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = cryptoIds.id(kind);
    expect(earlier).toMatch(/^[a-z]+_[A-Za-z0-9]{20}$/);
    expect(Buffer.compare(Buffer.from(earlier), Buffer.from(later))).toBe(-1);
    // The same millisecond's ids still differ: 13 random characters follow the time.
    expect(new Set(Array.from({ length: 1000 }, () => cryptoIds.id(kind))).size).toBe(1000);
  }
});

test('the time part is base62 in byte order, 7 characters, and grows with the time', () => {
  expect(timeBase62(0)).toBe('0000000');
  expect(timeBase62(61)).toBe('000000z');
  expect(timeBase62(62)).toBe('0000010');
  const instants = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2030, 5, 1), Date.UTC(2080, 0, 1)];
  const encoded = instants.map(timeBase62);
  expect([...encoded].sort()).toEqual(encoded);
});

test('tokens, keys, sessions and the other kinds stay wholly random: no shared time prefix', () => {
  for (const kind of ['pspToken', 'session', 'invitation', 'customer'] as const) {
    const prefixes = new Set(Array.from({ length: 50 }, () => cryptoIds.id(kind).split('_')[1]!.slice(0, 4)));
    expect(prefixes.size).toBeGreaterThan(40);
  }
});

test('derived ids stay what earlier versions derived (a retry after an upgrade must find the first run\'s objects)', () => {
  const ids = derivedIds('acc_ABC|test|secret|key-1|0123456789abcdef', cryptoIds);
  expect([ids.id('payment'), ids.id('payment'), ids.id('refund')]).toEqual(PINNED_DERIVED_IDS);
  expect(hmacBase62('k', 'label', 32)).toBe(PINNED_BASE62);
});

test('scheme 1 (claims before migration 0026): with the claim\'s time, derived payments and refunds start with that time and the other kinds stay wholly derived', () => {
  const time = new Date(Date.UTC(2026, 10, 27, 12, 0, 0, 123));
  const ids = derivedIds('acc_ABC|test|secret|key-1|0123456789abcdef', cryptoIds, time, 1);
  const again = derivedIds('acc_ABC|test|secret|key-1|0123456789abcdef', cryptoIds, new Date(time), 1);
  const run = (generator: IdGenerator) => [generator.id('payment'), generator.id('payment'), generator.id('refund'), generator.id('customer')];
  const derived = run(ids);
  expect(run(again)).toEqual(derived);
  expect(derived).toEqual(PINNED_TIMED_DERIVED_IDS);
  for (const id of derived.slice(0, 3)) expect(id.split('_')[1]!.slice(0, 7)).toBe(timeBase62(time.getTime()));
  // Another time is another id: a re-run must be given the first claim's time, never its own.
  expect(derivedIds('acc_ABC|test|secret|key-1|0123456789abcdef', cryptoIds, new Date(time.getTime() + 1)).id('payment')).not.toBe(derived[0]);
});

test('scheme 2: the claim\'s time is in every derived id, so a key reused after its expiry derives new ids of every kind', () => {
  const seed = 'acc_ABC|test|secret|key-1|0123456789abcdef';
  const time = new Date(Date.UTC(2026, 11, 7, 15, 0, 0, 0));
  const later = new Date(time.getTime() + 24 * 60 * 60 * 1000 + 1);
  const run = (generator: IdGenerator) => [generator.id('payment'), generator.id('customer'), generator.id('settlement'), generator.id('file')];
  const first = run(derivedIds(seed, cryptoIds, time, 2));
  expect(run(derivedIds(seed, cryptoIds, new Date(time), 2))).toEqual(first);
  const reused = run(derivedIds(seed, cryptoIds, later, 2));
  for (const [index, id] of reused.entries()) expect(id).not.toBe(first[index]);
  // Payments and refunds derive as in scheme 1 (the time already starts them); the other kinds differ from scheme 1.
  const scheme1 = run(derivedIds(seed, cryptoIds, time, 1));
  expect(first[0]).toBe(scheme1[0]);
  for (const index of [1, 2, 3]) expect(first[index]).not.toBe(scheme1[index]);
  expect(derivedIds(seed, cryptoIds, time).id('customer')).toBe(first[1]);
});

test('random base62 is unbiased: every character as likely as any other', () => {
  const counts = new Map<string, number>();
  for (const character of randomBase62(248_000)) counts.set(character, (counts.get(character) ?? 0) + 1);
  expect(counts.size).toBe(62);
  // 4,000 expected per character (sd 63); a plain byte % 62 would give the first eight 25 % more than the rest.
  expect(Math.max(...counts.values()) / Math.min(...counts.values())).toBeLessThan(1.12);
});

/** Derived by the version of 2026-11 (HMAC-SHA512 through createHmac): any change of the derivation must keep them. */
const PINNED_DERIVED_IDS = ['pay_4S5tKEH97fmO5bxuuZei', 'pay_On01oozZ2nSkkfAINmqt', 'ref_7x7fQmOc2Dx70SHe8VS2'];
const PINNED_BASE62 = 'UexEbuxtGLEXtWVX7wEjvqI6N5O839FY';
/** Derived with a claim's time since 2026-11-27: the first 7 characters of payments and refunds are that time. */
const PINNED_TIMED_DERIVED_IDS = ['pay_VcArEDb4S5tKEH97fmO5', 'pay_VcArEDbOn01oozZ2nSkk', 'ref_VcArEDb7x7fQmOc2Dx70', 'cus_TDkdg7DPjCYhVhrzeXic'];
