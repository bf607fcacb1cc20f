import { describe, expect, test } from 'vitest';
import { createCollectSimulator, SETTLEMENT_FEE_BPS } from './collect-simulator';
import { transferReferenceOf } from './transfer-reference';

describe('the collect simulator settlement quote', () => {
  const simulator = createCollectSimulator({ publicBaseUrl: 'http://127.0.0.1:8080', pageKey: Buffer.alloc(32, 7) });

  test('the fee is 1 % rounded up, in integers, also for amounts whose product with the rate leaves the exact doubles', () => {
    expect(SETTLEMENT_FEE_BPS).toBe(100);
    expect([1, 100, 101, 199, 200].map((gross) => simulator.quoteSettlement('GHS', gross).feeMinor)).toEqual([1, 1, 2, 2, 2]);
    // 82,203,587,639,629.01 GHS: times 100 it is past 2^53, where the floating-point product rounded the fee down.
    const gross = 8_220_358_763_962_901;
    expect(Number.isSafeInteger(gross)).toBe(true);
    expect(simulator.quoteSettlement('GHS', gross).feeMinor).toBe(82_203_587_639_630);
  });
});

describe('the bank transfer reference of a collection', () => {
  const simulator = createCollectSimulator({ publicBaseUrl: 'http://127.0.0.1:8080', pageKey: Buffer.alloc(32, 7) });
  const referenceOf = (collectionId: string) => {
    const opened = simulator.openCollection({ collectionId, accountId: 'acc_test', method: 'bank_transfer', currency: 'KES', amountMinor: 100, phoneNumber: null, customerReference: 'inv-1' });
    if (opened.instructions.type !== 'bank_transfer') throw new Error('not a bank transfer');
    return opened.instructions.reference;
  };

  test('two collections never share one: not when their ids end alike, nor when they differ only in case', () => {
    const ids = ['col_AAAAAAAAAAAAxK3p9QzR', 'col_BBBBBBBBBBBBxK3p9QzR', 'col_AAAAAAAAAAAAXk3P9qZr', 'col_aAAAAAAAAAAAxK3p9QzR'];
    const references = ids.map(referenceOf);
    expect(new Set(references).size).toBe(ids.length);
    // What a bank does to a reference: upper case.
    expect(new Set(references.map((reference) => reference.toUpperCase())).size).toBe(ids.length);
  });

  test('it fits a bank reference field: 28 characters, capitals and digits without I, L, O or U; the same id gives the same one', () => {
    for (const id of ['col_AAAAAAAAAAAAAAAAAAAA', 'col_99999999999999999999', 'col_xK3p9QzRxK3p9QzRxK3p']) {
      expect(referenceOf(id)).toMatch(/^RAIL[0-9A-HJKMNP-TV-Z]{24}$/);
      expect(referenceOf(id)).toBe(transferReferenceOf(id));
    }
    expect(transferReferenceOf('col_AAAAAAAAAAAAAAAAAAAA')).toBe(`RAIL${'0'.repeat(24)}`);
  });
});

describe("the challenge of a collection's payer page", () => {
  const simulator = createCollectSimulator({ publicBaseUrl: 'http://127.0.0.1:8080', pageKey: Buffer.alloc(32, 7) });
  const opened = simulator.openCollection({ collectionId: 'col_AAAAAAAAAAAAxK3p9QzR', accountId: 'acc_merchant', method: 'mobile_money', currency: 'KES', amountMinor: 100, phoneNumber: '+254700000009', customerReference: 'o-1' });

  test('names its account to the server only: sealed, opened with the same key, by nothing else', () => {
    const challenge = opened.challenge!;
    expect(challenge).not.toContain('acc_merchant');
    expect(opened.instructions.simulator_url).not.toContain('acc_merchant');
    expect(simulator.accountOfChallenge(challenge)).toBe('acc_merchant');
    const otherKey = createCollectSimulator({ publicBaseUrl: 'http://127.0.0.1:8080', pageKey: Buffer.alloc(32, 8) });
    expect(otherKey.accountOfChallenge(challenge)).toBeUndefined();
    const [sealed, secret] = challenge.split('.');
    // One character of the sealed part changed (to one it is not: the seal is random, so a fixed replacement was the
    // character already there once in 64 runs).
    const changed = sealed!.at(-2) === 'A' ? 'B' : 'A';
    const altered = `${sealed!.slice(0, -2)}${changed}${sealed!.slice(-1)}.${secret}`;
    expect(altered).not.toBe(challenge);
    for (const wrong of [altered, `acc_merchant.${secret}`, secret!, `.${secret}`, '']) expect(simulator.accountOfChallenge(wrong)).toBeUndefined();
  });
});
