/**
 * When a confirm and a refund call their rail, relative to the sync of what they wrote first: the confirm's claim
 * (core/payments/confirm-payment.ts), the pending refund and its reservation (core/refunds/create-refund.ts). A rail
 * that keeps its memory in Rail's own store (the simulators: RailAdapter.remembersInRailStore) is called while that
 * write is committed but not yet synced; any other rail only once it is durable. Either way the answer comes only
 * once everything written is durable. On SQLite (group commit) and PostgreSQL, where every commit is durable when it
 * returns and a rail is always called after that.
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

type Durability = 'durable' | 'not durable yet';

/** The UPI simulator's answers, through a rail that notes what of Rail's writes was durable when it was called. */
class ProbedUpiRail implements RailAdapter {
  readonly #upi = new UpiSimulator({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' });
  readonly rail = this.#upi.rail;
  readonly connector = this.#upi.connector;
  remembersInRailStore = false;
  /** Whether everything Rail had written was durable, at each authorize and refund. */
  readonly atCalls: Durability[] = [];

  constructor(private readonly writtenSoFar: () => Durability | Promise<Durability>) {}

  paymentMethodTypes(currency: Parameters<RailAdapter['paymentMethodTypes']>[0]) {
    return this.#upi.paymentMethodTypes(currency);
  }

  async authorize(request: AuthorizeRequest) {
    this.atCalls.push(await this.writtenSoFar());
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
  /**
   * SQLite: whether the group commit's writes so far are durable now, i.e. before the sync that a write of this turn
   * of the event loop starts could end (a sync ends on the thread pool, after this turn's setImmediate callbacks).
   * PostgreSQL: every commit is durable when it returns.
   */
  const writtenSoFar = (): Promise<Durability> => {
    const group = groupCommitOf(h.db);
    if (group === undefined) return Promise.resolve('durable');
    return Promise.race([
      group.writtenSoFarDurable().then((): Durability => 'durable'),
      new Promise<Durability>((resolve) => setImmediate(() => resolve('not durable yet'))),
    ]);
  };
  const rail = new ProbedUpiRail(() => writtenSoFar());

  beforeAll(async () => {
    h = await createHarness(engine, { testAdapters: { upi: rail } });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    rail.atCalls.length = 0;
  });

  const confirmedPayment = async (): Promise<PaymentResponse> => {
    const created = await expectOk<PaymentResponse>(
      await apiRequest(h, 'POST', '/payments', { body: { amount: 2_500, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } } }),
    );
    return expectOk<PaymentResponse>(await apiRequest(h, 'POST', `/payments/${created.payment_id}/confirm`, { body: {} }));
  };

  const refunded = async (paymentId: string): Promise<RefundResponse> =>
    expectOk<RefundResponse>(await apiRequest(h, 'POST', '/refunds', { body: { payment_id: paymentId, amount: 1_000 } }));

  test('a rail that keeps its memory in Rail\'s store is called before the claim\'s sync (SQLite); the answer waits for it', async () => {
    rail.remembersInRailStore = true;
    const confirmed = await confirmedPayment();
    expect(confirmed.status).toBe('succeeded');
    expect(rail.atCalls).toEqual([engine === 'sqlite' ? 'not durable yet' : 'durable']);
    // Answered: the claim, the rail's answer and the outcome are all durable by now.
    expect(await writtenSoFar()).toBe('durable');
  });

  test('any other rail is called only once the claim is durable', async () => {
    rail.remembersInRailStore = false;
    const confirmed = await confirmedPayment();
    expect(confirmed.status).toBe('succeeded');
    expect(rail.atCalls).toEqual(['durable']);
    expect(await writtenSoFar()).toBe('durable');
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
