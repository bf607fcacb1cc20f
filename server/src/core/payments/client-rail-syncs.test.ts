import { expect, test } from 'vitest';
import { CLIENT_RAIL_SYNC_INTERVAL_MS, ClientRailSyncs } from './client-rail-syncs';

const payment = (accountId: string, mode: 'test' | 'live', paymentId = 'order_1') => ({ accountId, mode, paymentId });

test('one ask per payment per interval, none while one is out', () => {
  const syncs = new ClientRailSyncs();
  const first = syncs.tryAsk(payment('acc_a', 'test'), 0);
  expect(first).toBeDefined();
  expect(syncs.tryAsk(payment('acc_a', 'test'), CLIENT_RAIL_SYNC_INTERVAL_MS + 1)).toBeUndefined();
  first!.done();
  expect(syncs.tryAsk(payment('acc_a', 'test'), CLIENT_RAIL_SYNC_INTERVAL_MS - 1)).toBeUndefined();
  expect(syncs.tryAsk(payment('acc_a', 'test'), CLIENT_RAIL_SYNC_INTERVAL_MS)).toBeDefined();
});

test("a payment id another account or mode also uses is a payment of its own", () => {
  const syncs = new ClientRailSyncs();
  expect(syncs.tryAsk(payment('acc_b', 'test'), 0)).toBeDefined();
  expect(syncs.tryAsk(payment('acc_a', 'test'), 0)).toBeDefined();
  expect(syncs.tryAsk(payment('acc_a', 'live'), 0)).toBeDefined();
  expect(syncs.tryAsk(payment('acc_a', 'test'), 1)).toBeUndefined();
});

test('memory stays bounded: when full, the oldest half is forgotten', () => {
  const syncs = new ClientRailSyncs();
  for (let i = 0; i < 10_000; i += 1) syncs.tryAsk(payment('acc_a', 'test', `pay_${i}`), 0);
  expect(syncs.tryAsk(payment('acc_a', 'test', 'pay_9999'), 1)).toBeUndefined();
  expect(syncs.tryAsk(payment('acc_a', 'test', 'pay_new'), 1)).toBeDefined();
  // Every ask is still out, so only forgetting lets one of the oldest ask again; the newest are remembered.
  expect(syncs.tryAsk(payment('acc_a', 'test', 'pay_1'), 2)).toBeDefined();
  expect(syncs.tryAsk(payment('acc_a', 'test', 'pay_9999'), 2)).toBeUndefined();
});
