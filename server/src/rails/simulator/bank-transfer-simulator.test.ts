import { describe, expect, test } from 'vitest';
import { cryptoIds } from '../../kernel/ids';
import type { AuthorizeRequest, RailOutcome } from '../rail-adapter';
import { BankTransferSimulator } from './bank-transfer-simulator';
import { transferReferenceOf } from './transfer-reference';

const request = (attemptId: string, method: 'bank_transfer' | 'mobile_payment'): AuthorizeRequest =>
  ({
    accountId: 'acc_test',
    mode: 'test',
    paymentId: 'order-1001',
    attemptId,
    amount: 150_000,
    currency: 'KES',
    paymentMethod: method,
    paymentMethodType: method === 'bank_transfer' ? 'local_bank_transfer' : 'momo',
    paymentMethodData: method === 'bank_transfer' ? { bank_transfer: { local_bank_transfer: {} } } : { mobile_payment: { momo: { msisdn: '+254700000001' } } },
    returnUrl: null,
    now: new Date('2025-01-01T00:00:00Z'),
  }) as AuthorizeRequest;

/** The transfer's reference at the simulator, and the one its payer is told to quote. */
async function referencesOf(simulator: BankTransferSimulator, attemptId: string, method: 'bank_transfer' | 'mobile_payment') {
  const outcome: RailOutcome = await simulator.authorize(request(attemptId, method));
  if (outcome.kind !== 'customer_action') throw new Error(`unexpected outcome ${outcome.kind}`);
  const details = (outcome.nextAction as { bank_transfer_steps_and_charges_details: Record<string, unknown> }).bank_transfer_steps_and_charges_details;
  return { transfer: outcome.reference, quoted: String(details['reference'] ?? details['account_reference']) };
}

describe('the reference a payer quotes to the bank transfer simulator', () => {
  const simulator = new BankTransferSimulator({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });

  test("is the transfer's own reference written for a bank, so no two transfers share one; 28 characters a bank keeps whole", async () => {
    for (const method of ['bank_transfer', 'mobile_payment'] as const) {
      const first = await referencesOf(simulator, 'order-1001_1', method);
      const second = await referencesOf(simulator, 'order-1001_2', method);
      expect(first.quoted).toBe(transferReferenceOf(first.transfer));
      expect(second.quoted).toBe(transferReferenceOf(second.transfer));
      expect(first.quoted).not.toBe(second.quoted);
      for (const { quoted } of [first, second]) expect(quoted).toMatch(/^RAIL[0-9A-HJKMNP-TV-Z]{24}$/);
    }
  });
});
