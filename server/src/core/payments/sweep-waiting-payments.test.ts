/**
 * The waiting-payment sweep on a real store: payments resolve, with their outbox events, without anybody reading
 * them; the walk covers every waiting payment in batches; one failing rail does not stop it. Runs on SQLite and
 * PostgreSQL (forEachEngine).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PaymentResponse } from '../../../../protocol/api/payments';
import { ALL_RAILS_SETTINGS } from '../../test-support/fixtures';
import { BANK_TRANSFER_RESOLVE_AFTER_MS } from '../../rails/simulator/bank-transfer-simulator';
import { CryptoSimulator } from '../../rails/simulator/crypto-simulator';
import { PENDING_RESOLVE_AFTER_MS } from '../../rails/simulator/upi-simulator';
import type { SyncRequest } from '../../rails/rail-adapter';
import type { Engine } from '../../storage/database';
import type { PaymentRecord } from '../../storage/payments/records';
import { apiRequest } from '../../test-support/api-assertions';
import { createHarness, type Harness } from '../../test-support/harness';
import { forEachEngine } from '../../test-support/engines';
import { cryptoIds } from '../../kernel/ids';
import { WaitingPaymentSweep } from './sweep-waiting-payments';

/** A crypto rail whose status endpoint is down. */
class UnreachableCryptoRail extends CryptoSimulator {
  override async sync(_request: SyncRequest): Promise<never> {
    throw new Error('crypto rail unreachable');
  }
}

forEachEngine('Waiting-payment sweep', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine, {
      settings: ALL_RAILS_SETTINGS,
      testAdapters: { crypto: new UnreachableCryptoRail({ ids: cryptoIds, publicBaseUrl: 'http://127.0.0.1:8080' }) },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const scope = () => ({ accountId: h.boot.account.accountId, mode: 'test' as const });
  const deps = () => ({ store: h.store, rails: h.rails, clock: h.clock, ids: cryptoIds });
  const sweep = (batchSize = 100) => {
    const failures: { payment: PaymentRecord; error: unknown }[] = [];
    return { failures, sweep: new WaitingPaymentSweep(deps(), { batchSize, onError: (payment, error) => failures.push({ payment, error }) }) };
  };
  /** Creates and confirms a payment through the API; the sweep is what moves it afterwards. */
  const confirmed = async (create: Record<string, unknown>, confirm: Record<string, unknown>): Promise<string> => {
    const created = (await (await apiRequest(h, 'POST', '/payments', { body: create })).json()) as PaymentResponse;
    const response = await apiRequest(h, 'POST', `/payments/${created.payment_id}/confirm`, { body: confirm });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as PaymentResponse).status).toBe('requires_customer_action');
    return created.payment_id;
  };
  const pendingUpi = () =>
    confirmed({ amount: 1_000, currency: 'INR' }, { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'pending@upi' } } } });
  const bankTransfer = () =>
    confirmed({ amount: 150_000, currency: 'KES' }, { payment_method: 'bank_transfer', payment_method_data: { bank_transfer: { local_bank_transfer: {} } } });
  const stored = async (paymentId: string) => (await h.store.payments.findPayment(scope(), paymentId))!;
  const events = async (paymentId: string) => (await h.store.outbox.listEventsForObject(scope(), paymentId)).map((event) => event.eventType);
  /** Sweeps until the walk wraps, summing what each step did. */
  const lap = async (walk: WaitingPaymentSweep) => {
    const steps = [];
    for (;;) {
      const step = await walk.step();
      steps.push(step);
      if (step.wrapped) return steps;
    }
  };

  describe(`[${engine}] WaitingPaymentSweep`, () => {
    test('a pending UPI collect resolves with its payment_succeeded event once due, and not before, without a read', async () => {
      const paymentId = await pendingUpi();
      const { sweep: walk } = sweep();
      h.clock.advance(PENDING_RESOLVE_AFTER_MS - 1);
      await lap(walk);
      expect((await stored(paymentId)).status).toBe('requires_customer_action');
      h.clock.advance(1);
      const steps = await lap(walk);
      expect(steps.reduce((sum, step) => sum + step.resolved, 0)).toBeGreaterThanOrEqual(1);
      expect(await stored(paymentId)).toMatchObject({ status: 'succeeded', amountReceived: 1_000 });
      expect(await events(paymentId)).toEqual(['action_required', 'payment_succeeded']);
    });

    test('walks every waiting payment in batches and starts over at the end', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await bankTransfer());
      const { sweep: walk } = sweep(2);
      const first = await lap(walk);
      // Every waiting payment of the store is visited once per lap (other tests' payments may wait too).
      const checked = first.reduce((sum, step) => sum + step.checked, 0);
      expect(checked).toBeGreaterThanOrEqual(5);
      expect(first.slice(0, -1).every((step) => step.checked === 2 && !step.wrapped)).toBe(true);
      expect(first.at(-1)).toMatchObject({ wrapped: true });
      expect(first.at(-1)!.checked).toBeLessThan(2);
      h.clock.advance(BANK_TRANSFER_RESOLVE_AFTER_MS);
      await lap(walk);
      for (const id of ids) expect((await stored(id)).status).toBe('succeeded');
      // A second lap finds nothing of theirs left to ask about.
      const after = await h.store.paymentList.listWaitingPayments(null, 100);
      expect(after.filter((payment) => ids.includes(payment.paymentId))).toEqual([]);
    });

    test('a rail that throws is reported and skipped; the others still resolve', async () => {
      const crypto = await confirmed({ amount: 5_000, currency: 'EUR' }, { payment_method: 'crypto', payment_method_type: 'crypto_currency', payment_method_data: { crypto: { pay_currency: 'USDC' } } });
      const upi = await pendingUpi();
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      const { sweep: walk, failures } = sweep();
      await lap(walk);
      expect(failures.map((failure) => [failure.payment.paymentId, (failure.error as Error).message])).toEqual([[crypto, 'crypto rail unreachable']]);
      expect((await stored(crypto)).status).toBe('requires_customer_action');
      expect((await stored(upi)).status).toBe('succeeded');
    });

    test('two sweeps at once (two instances) apply each answer once', async () => {
      const paymentId = await pendingUpi();
      h.clock.advance(PENDING_RESOLVE_AFTER_MS);
      await Promise.all([lap(sweep().sweep), lap(sweep().sweep)]);
      expect((await stored(paymentId)).status).toBe('succeeded');
      expect(await events(paymentId)).toEqual(['action_required', 'payment_succeeded']);
    });
  });
});
