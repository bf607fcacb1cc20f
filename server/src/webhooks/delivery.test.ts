import { describe, expect, test } from 'vitest';
import { DEFAULT_LEASE_MS, DEFAULT_TIMEOUT_MS, LEASE_MARGIN_MS, defaultWebhookDeliveryConfig, leaseTooShort } from './delivery';

describe('the delivery lease against the attempt timeout', () => {
  test('the defaults leave an attempt its margin', () => {
    expect(DEFAULT_LEASE_MS).toBeGreaterThan(DEFAULT_TIMEOUT_MS + LEASE_MARGIN_MS);
    expect(defaultWebhookDeliveryConfig()).toMatchObject({ timeoutMs: DEFAULT_TIMEOUT_MS, leaseMs: DEFAULT_LEASE_MS });
  });

  test('a lease not longer than the timeout plus the margin is refused: an attempt still waiting could be claimed and sent again', () => {
    expect(() => defaultWebhookDeliveryConfig({ timeoutMs: 60_000 })).toThrow(/lease \(60000 ms\) must be longer than the attempt timeout \(60000 ms\)/);
    expect(() => defaultWebhookDeliveryConfig({ leaseMs: 5_000 })).toThrow(/lease/);
    expect(() => defaultWebhookDeliveryConfig({ timeoutMs: 30_000, leaseMs: 30_000 + LEASE_MARGIN_MS })).toThrow(/lease/);
    expect(defaultWebhookDeliveryConfig({ timeoutMs: 30_000, leaseMs: 30_001 + LEASE_MARGIN_MS }).leaseMs).toBe(30_001 + LEASE_MARGIN_MS);
    expect(leaseTooShort(DEFAULT_TIMEOUT_MS, DEFAULT_LEASE_MS)).toBeUndefined();
  });
});
