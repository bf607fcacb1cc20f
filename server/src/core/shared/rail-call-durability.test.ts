/**
 * When a confirm and a refund call their rail, relative to the sync of what they wrote first: the confirm's claim
 * (core/payments/confirm-payment.ts), the pending refund and its reservation (core/refunds/create-refund.ts). A rail
 * that keeps its memory in Rail's own store (the simulators: RailAdapter.remembersInRailStore) is called while that
 * write is committed but not yet synced; any other rail only once it is durable. Either way the answer comes only
 * once everything written is durable. On SQLite (group commit) the probe sees the syncs themselves. On PostgreSQL the
 * WAL writer flushes an asynchronous commit within moments, so the probe sees how the confirm claims instead
 * (flushLater: committed without waiting for its flush; storage/payments/confirm-writes.test.ts shows what that sends)
 * and what it hands the claim's `durable` before it answers; a refund's transaction always commits durably there.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import type { PaymentResponse } from '../../../../protocol/api/payments';
import { cryptoIds } from '../../kernel/ids';
import type { RefundResponse } from '../../../../protocol/api/refunds';
import type { AuthorizeRequest, RailAdapter, RefundRequest } from '../../rails/rail-adapter';
import { createSimulatorRegistry } from '../../rails/simulator/registry';
import { UpiSimulator } from '../../rails/simulator/upi-simulator';
import { groupCommitOf } from '../../storage/database';
import { apiRequest, expectOk } from '../../test-support/api-assertions';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';
import type { PaymentRecord } from '../../storage/payments/records';

type Durability = 'durable' | 'not durable yet';

/** The UPI simulator's answers, through a rail that notes what of Rail's writes was durable when it was called. */
class ProbedUpiRail implements RailAdapter {
  readonly #upi = new UpiSimulator({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });
  readonly rail = this.#upi.rail;
  readonly connector = this.#upi.connector;
  remembersInRailStore = false;
  /** Whether everything Rail had written was durable, at each authorize and refund. */
  readonly atCalls: Durability[] = [];
  /** Authorize throws instead of answering (recovery asks again later). */
  answers = true;

  constructor(private readonly writtenSoFar: () => Durability | Promise<Durability>) {}

  paymentMethodTypes(currency: Parameters<RailAdapter['paymentMethodTypes']>[0]) {
    return this.#upi.paymentMethodTypes(currency);
  }

  async authorize(request: AuthorizeRequest) {
    this.atCalls.push(await this.writtenSoFar());
    if (!this.answers) throw new Error('the probed rail does not answer');
    return this.#upi.authorize(request);
  }

  async refund(request: RefundRequest) {
    this.atCalls.push(await this.writtenSoFar());
    return this.#upi.refund(request);
  }

  sync(request: Parameters<RailAdapter['sync']>[0]) {
    return this.#upi.sync(request);
  }
}

forEachEngine('the rail call and the sync of what was written before it', (engine) => {
  let h: Harness;
  /** PostgreSQL: each claim the confirms made (flushLater or not), and each `durable` call on it (the payment it was given, if any). */
  const claims: { flushLater: boolean; durableSince: (PaymentRecord | undefined)[] }[] = [];
  /**
   * SQLite: whether the group commit's writes so far are durable now, i.e. before the sync that a write of this turn
   * of the event loop starts could end (a sync ends on the thread pool, after this turn's setImmediate callbacks).
   * PostgreSQL: the claim is what is not durable yet, when it was made with flushLater and `durable` was not called.
   */
  const writtenSoFar = (): Promise<Durability> => {
    const group = groupCommitOf(h.db);
    if (group === undefined) {
      const claim = claims.at(-1);
      return Promise.resolve(claim?.flushLater === true && claim.durableSince.length === 0 ? 'not durable yet' : 'durable');
    }
    return Promise.race([
      group.writtenSoFarDurable().then((): Durability => 'durable'),
      new Promise<Durability>((resolve) => setImmediate(() => resolve('not durable yet'))),
    ]);
  };
  const rail = new ProbedUpiRail(() => writtenSoFar());

  beforeAll(async () => {
    h = await createHarness(engine, { testAdapters: { upi: rail } });
    const claim = h.store.payments.claimPaymentAndOpenAttempt.bind(h.store.payments);
    h.store.payments.claimPaymentAndOpenAttempt = async (...args) => {
      const claimed = await claim(...args);
      if (claimed === undefined) return undefined;
      const noted = { flushLater: args[4]?.flushLater === true, durableSince: [] as (PaymentRecord | undefined)[] };
      claims.push(noted);
      return {
        ...claimed,
        durable: (since) => {
          noted.durableSince.push(since);
          return claimed.durable(since);
        },
      };
    };
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    rail.atCalls.length = 0;
    rail.answers = true;
    claims.length = 0;
  });

  const confirmedPayment = async (): Promise<PaymentResponse> => {
    const created = await expectOk<PaymentResponse>(
      await apiRequest(h, 'POST', '/payments', { body: { amount: 2_500, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } } }),
    );
    return expectOk<PaymentResponse>(await apiRequest(h, 'POST', `/payments/${created.payment_id}/confirm`, { body: {} }));
  };

  const refunded = async (paymentId: string): Promise<RefundResponse> =>
    expectOk<RefundResponse>(await apiRequest(h, 'POST', '/refunds', { body: { payment_id: paymentId, amount: 1_000 } }));

  test('a rail that keeps its memory in Rail\'s store is called before the claim is durable; the answer waits for it', async () => {
    rail.remembersInRailStore = true;
    const confirmed = await confirmedPayment();
    expect(confirmed.status).toBe('succeeded');
    expect(rail.atCalls).toEqual(['not durable yet']);
    // Answered: the claim, the rail's answer and the outcome are all durable by now. On PostgreSQL the outcome's own
    // durable commit, a later version of the payment, covers the claim: `durable` is handed it and sends nothing.
    expect(await writtenSoFar()).toBe('durable');
    if (engine === 'postgres') expect(claims.map((claim) => claim.durableSince.map((since) => since?.version))).toEqual([[3]]);
  });

  test('such a rail that does not answer: the answer ("processing") waits until the claim is durable', async () => {
    rail.remembersInRailStore = true;
    rail.answers = false;
    const confirmed = await confirmedPayment();
    expect(confirmed.status).toBe('processing');
    expect(rail.atCalls).toEqual(['not durable yet']);
    expect(await writtenSoFar()).toBe('durable');
    // Nothing written after the claim covers it: on PostgreSQL `durable` flushes the WAL (confirm-writes.test.ts).
    if (engine === 'postgres') expect(claims.map((claim) => claim.durableSince)).toEqual([[undefined]]);
  });

  test('any other rail is called only once the claim is durable', async () => {
    rail.remembersInRailStore = false;
    const confirmed = await confirmedPayment();
    expect(confirmed.status).toBe('succeeded');
    expect(rail.atCalls).toEqual(['durable']);
    expect(await writtenSoFar()).toBe('durable');
    if (engine === 'postgres') expect(claims.map((claim) => claim.flushLater)).toEqual([false]);
  });

  test('a refund: such a rail is called before the pending refund\'s sync (SQLite), any other only after it', async () => {
    rail.remembersInRailStore = true;
    const first = await confirmedPayment();
    rail.atCalls.length = 0;
    expect((await refunded(first.payment_id)).status).toBe('succeeded');
    expect(rail.atCalls).toEqual([engine === 'sqlite' ? 'not durable yet' : 'durable']);
    expect(await writtenSoFar()).toBe('durable');

    rail.remembersInRailStore = false;
    const second = await confirmedPayment();
    rail.atCalls.length = 0;
    expect((await refunded(second.payment_id)).status).toBe('succeeded');
    expect(rail.atCalls).toEqual(['durable']);
    expect(await writtenSoFar()).toBe('durable');
  });

  test('the simulators keep their memory in Rail\'s store (compose.ts); with a ledger in memory they do not', () => {
    for (const name of ['card', 'bank_transfer', 'crypto'] as const) expect(h.rails.adapterFor('test', name)?.remembersInRailStore, name).toBe(true);
    const inMemory = createSimulatorRegistry({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080', walletOrderKey: Buffer.alloc(32) });
    expect(inMemory.adapterFor('test', 'upi')?.remembersInRailStore).toBe(false);
  });
});
