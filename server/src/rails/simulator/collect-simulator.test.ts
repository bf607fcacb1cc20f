import { describe, expect, test } from 'vitest';
import { createCollectSimulator, SETTLEMENT_FEE_BPS } from './collect-simulator';

describe('the collect simulator settlement quote', () => {
  const simulator = createCollectSimulator({ publicBaseUrl: 'http://127.0.0.1:8080' });

  test('the fee is 1 % rounded up, in integers, also for amounts whose product with the rate leaves the exact doubles', () => {
    expect(SETTLEMENT_FEE_BPS).toBe(100);
    expect([1, 100, 101, 199, 200].map((gross) => simulator.quoteSettlement('GHS', gross).feeMinor)).toEqual([1, 1, 2, 2, 2]);
    // 82,203,587,639,629.01 GHS: times 100 it is past 2^53, where the floating-point product rounded the fee down.
    const gross = 8_220_358_763_962_901;
    expect(Number.isSafeInteger(gross)).toBe(true);
    expect(simulator.quoteSettlement('GHS', gross).feeMinor).toBe(82_203_587_639_630);
  });
});
