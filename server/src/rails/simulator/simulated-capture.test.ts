/**
 * Captures and voids of the simulated rails with their memory (RememberingRail over an in-memory ledger), without
 * the core: each is kept under its reference, a capture never takes an authorization past its amount, a captured
 * authorization is not voided and a voided one not captured, and a capture received twice captures once.
 */
import { describe, expect, test } from 'vitest';
import { cryptoIds } from '../../kernel/ids';
import type { CaptureRequest, RailAdapter, VoidRequest } from '../rail-adapter';
import { createMemoryRailLedger } from '../rail-ledger';
import { CardSimulator } from './card-simulator';
import { RememberingRail } from './remembering-rail';
import { SimulatorFaults } from './simulator-faults';
import { UpiSimulator } from './upi-simulator';

const NOW = new Date('2026-01-01T00:00:00Z');
const OPTIONS = { ids: cryptoIds, publicBaseUrl: 'http://api.test', walletOrderKey: Buffer.alloc(32, 1) };

function rails(): { faults: SimulatorFaults; card: RailAdapter; upi: RailAdapter } {
  const memory = { ledger: createMemoryRailLedger(), faults: new SimulatorFaults(), timeoutFaultMs: 10 };
  return { faults: memory.faults, card: new RememberingRail(new CardSimulator(OPTIONS), memory), upi: new RememberingRail(new UpiSimulator(OPTIONS), memory) };
}

const voidOf = (attemptId: string, n = 1): VoidRequest => ({ accountId: 'acc_1', mode: 'test', paymentId: 'pay_1', attemptId, reference: `${attemptId}_void_${n}`, railReference: 'sim_1', now: NOW });
const captureOf = (attemptId: string, sequence: number, amount: number, authorizedAmount = 10_000): CaptureRequest => ({
  ...voidOf(attemptId),
  captureId: `${attemptId}_${sequence}`,
  amount,
  authorizedAmount,
  final: false,
  currency: 'EUR',
});

describe.each(['card', 'upi'] as const)('the %s simulator captures and voids', (rail) => {
  test('captures up to the amount authorized, each kept under its capture id; then no void', async () => {
    const adapter = rails()[rail];
    expect(await adapter.capture!(captureOf('pay_1_1', 1, 6_000))).toMatchObject({ kind: 'captured', amount: 6_000 });
    expect(await adapter.capture!(captureOf('pay_1_1', 2, 5_000))).toMatchObject({ kind: 'declined', errorCode: 'capture_exceeds_authorization' });
    // An increased authorization takes more.
    expect(await adapter.capture!(captureOf('pay_1_1', 3, 5_000, 12_000))).toMatchObject({ kind: 'captured' });
    // Another authorization (attempt pay_1_10 starts with pay_1_1) holds nothing of these.
    expect(await adapter.capture!(captureOf('pay_1_10', 1, 10_000))).toMatchObject({ kind: 'captured' });
    expect(await adapter.lookupCapture!({ accountId: 'acc_1', mode: 'test', reference: 'pay_1_1_2', now: NOW })).toMatchObject({ kind: 'declined' });
    expect(await adapter.lookupCapture!({ accountId: 'acc_1', mode: 'test', reference: 'pay_1_1_4', now: NOW })).toEqual({ kind: 'not_received' });
    expect(await adapter.voidAuthorization!(voidOf('pay_1_1'))).toMatchObject({ kind: 'declined', errorCode: 'authorization_captured' });
  });

  test('voids an uncaptured authorization once, and captures nothing of it afterwards', async () => {
    const adapter = rails()[rail];
    const voided = await adapter.voidAuthorization!(voidOf('pay_2_1'));
    expect(voided).toMatchObject({ kind: 'voided' });
    expect(await adapter.voidAuthorization!(voidOf('pay_2_1'))).toEqual(voided);
    expect(await adapter.lookupVoid!({ accountId: 'acc_1', mode: 'test', reference: 'pay_2_1_void_1', now: NOW })).toEqual(voided);
    // Another void of it (another request, its own reference) finds it voided.
    expect(await adapter.voidAuthorization!(voidOf('pay_2_1', 2))).toMatchObject({ kind: 'voided' });
    expect(await adapter.capture!(captureOf('pay_2_1', 1, 1_000))).toMatchObject({ kind: 'declined', errorCode: 'authorization_voided' });
  });

  test('a capture received twice, or sent again under its capture id, captures once', async () => {
    const set = rails();
    const adapter = set[rail];
    set.faults.inject('answer_twice', { call: 'capture' });
    const first = await adapter.capture!(captureOf('pay_3_1', 1, 10_000));
    expect(first).toMatchObject({ kind: 'captured', amount: 10_000 });
    expect(await adapter.capture!(captureOf('pay_3_1', 1, 10_000))).toEqual(first);
    expect(await adapter.capture!(captureOf('pay_3_1', 2, 1))).toMatchObject({ kind: 'declined', errorCode: 'capture_exceeds_authorization' });
  });
});

/** A UPI simulator whose first void is refused (an acquirer that was briefly unable to release the hold). */
class RefusingFirstVoidUpi extends UpiSimulator {
  private voids = 0;
  override async voidHeld(request: VoidRequest, hold: Parameters<UpiSimulator['voidHeld']>[1]) {
    this.voids += 1;
    if (this.voids === 1) return { kind: 'declined' as const, reference: 'refused', errorCode: 'try_again', errorMessage: 'Not now' };
    return super.voidHeld(request, hold);
  }
}

describe('a void refused once', () => {
  test('is asked again under the next request\'s own reference, and taken (the first refusal is not replayed)', async () => {
    const adapter = new RememberingRail(new RefusingFirstVoidUpi(OPTIONS), { ledger: createMemoryRailLedger(), faults: new SimulatorFaults(), timeoutFaultMs: 10 });
    expect(await adapter.voidAuthorization!(voidOf('pay_9_1', 1))).toMatchObject({ kind: 'declined', errorCode: 'try_again' });
    expect(await adapter.voidAuthorization!(voidOf('pay_9_1', 2))).toMatchObject({ kind: 'voided' });
    expect(await adapter.lookupVoid!({ accountId: 'acc_1', mode: 'test', reference: 'pay_9_1_void_1', now: NOW })).toMatchObject({ kind: 'declined' });
    expect(await adapter.lookupVoid!({ accountId: 'acc_1', mode: 'test', reference: 'pay_9_1_void_2', now: NOW })).toMatchObject({ kind: 'voided' });
    expect(await adapter.capture!(captureOf('pay_9_1', 1, 1_000))).toMatchObject({ kind: 'declined', errorCode: 'authorization_voided' });
  });
});
