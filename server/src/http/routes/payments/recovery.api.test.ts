/**
 * Crash and rail-failure recovery (issue 19, defects 1 and 2), through the API on SQLite and PostgreSQL. The
 * simulators play each way a rail call goes wrong on demand (rails/simulator/simulator-faults.ts); a failure after
 * the rail took the request leaves exactly what a SIGKILL between the confirm's claim and applying the answer
 * leaves: a payment in processing (a refund in pending) and the rail's memory of its answer. The recovery job
 * (core/recovery/recover-stuck-objects.ts) must settle each one with its event, once.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import type { EventList } from '../../../../../protocol/api/events';
import type { PaymentResponse } from '../../../../../protocol/api/payments';
import type { RefundResponse } from '../../../../../protocol/api/refunds';
import { StuckObjectRecovery, type StuckObject } from '../../../core/recovery/recover-stuck-objects';
import type { RecoveryPolicy } from '../../../core/shared/deps';
import { apiRequest, expectApiError, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

const POLICY: RecoveryPolicy = { railCallTimeoutMs: 150, recoverAfterMs: 60_000, leaseMs: 30_000, deadlineMs: 24 * 3600_000 };
const UPI_SUCCESS = { upi: { upi_collect: { vpa_id: 'success@upi' } } };

forEachEngine('Recovery of payments and refunds left in flight', (engine) => {
  let h: Harness;
  let recovery: StuckObjectRecovery;
  const failures: { object: StuckObject; error: unknown }[] = [];

  beforeAll(async () => {
    h = await createHarness(engine, { recovery: POLICY });
    recovery = new StuckObjectRecovery(h.core, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    h.faults.clear();
    failures.length = 0;
  });

  const request = (method: string, path: string, body?: unknown) => apiRequest(h, method, path, body === undefined ? {} : { body });
  const createPayment = async (amount = 5000) =>
    expectOk<PaymentResponse>(await request('POST', '/payments', { amount, currency: 'INR', payment_method_data: UPI_SUCCESS }));
  const confirm = async (paymentId: string) => expectOk<PaymentResponse>(await request('POST', `/payments/${paymentId}/confirm`, {}));
  const retrieve = async (paymentId: string, forceSync = false) =>
    expectOk<PaymentResponse>(await request('GET', `/payments/${paymentId}${forceSync ? '?force_sync=true' : ''}`));
  const eventTypes = async (objectId: string) =>
    (await expectOk<EventList>(await request('GET', `/events?object_id=${objectId}`))).data.map((event) => event.event_type).sort();
  /** Runs the job until it finds nothing more to do (other tests' objects may share the database). */
  const recoverAll = async () => {
    for (let step = await recovery.step(); step.checked > 0; step = await recovery.step());
  };
  const succeededPayment = async (amount = 10_000) => {
    const created = await createPayment(amount);
    const paid = await confirm(created.payment_id);
    expect(paid.status).toBe('succeeded');
    return paid;
  };

  test('the rail took the confirm, then the call failed: processing until recovery, then the rail\'s answer with one event', async () => {
    const created = await createPayment();
    h.faults.inject('throw_after_accept', { call: 'authorize', rail: 'upi' });
    const confirmed = await confirm(created.payment_id);
    expect(confirmed.status).toBe('processing');
    expect(await eventTypes(created.payment_id)).toEqual([]);

    // Too early: the confirm may still be waiting for the rail.
    await recoverAll();
    expect((await retrieve(created.payment_id)).status).toBe('processing');

    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    const recovered = await retrieve(created.payment_id);
    expect(recovered.status).toBe('succeeded');
    expect(recovered.amount_received).toBe(5000);
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
    // A second run finds nothing and sends nothing more.
    await recoverAll();
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
    expect(failures).toEqual([]);
  });

  test('the rail never received the confirm: the payment fails with rail_not_reached, nothing charged', async () => {
    const created = await createPayment();
    h.faults.inject('throw_before_accept', { call: 'authorize', rail: 'upi' });
    expect((await confirm(created.payment_id)).status).toBe('processing');

    // force_sync inside the call limit must not conclude anything: the confirm may still be on its way.
    expect((await retrieve(created.payment_id, true)).status).toBe('processing');

    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    const recovered = await retrieve(created.payment_id);
    expect(recovered.status).toBe('failed');
    expect(recovered.error_code).toBe('rail_not_reached');
    expect(recovered.amount_received ?? 0).toBe(0);
    expect(await eventTypes(created.payment_id)).toEqual(['payment_failed']);
  });

  test('a rail that does not answer in time: the confirm answers processing at the call limit, recovery settles it', async () => {
    const created = await createPayment();
    h.faults.inject('timeout', { call: 'authorize', rail: 'upi' });
    const confirmed = await confirm(created.payment_id);
    expect(confirmed.status).toBe('processing');
    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    expect((await retrieve(created.payment_id)).status).toBe('succeeded');
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
  });

  test('a rail that receives the confirm twice charges once: one attempt, one event', async () => {
    const created = await createPayment();
    h.faults.inject('answer_twice', { call: 'authorize', rail: 'upi' });
    const confirmed = await confirm(created.payment_id);
    expect(confirmed.status).toBe('succeeded');
    const expanded = await expectOk<PaymentResponse>(await request('GET', `/payments/${created.payment_id}?expand_attempts=true`));
    expect(expanded.attempts).toHaveLength(1);
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
  });

  test('a rail that stays silent past the deadline: requires_merchant_action with action_required; a later answer still settles it', async () => {
    const created = await createPayment();
    h.faults.inject('throw_after_accept', { call: 'authorize', rail: 'upi' });
    h.faults.inject('throw_before_accept', { call: 'lookup', rail: 'upi', times: 1000 });
    await confirm(created.payment_id);

    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    expect((await retrieve(created.payment_id)).status).toBe('processing');
    expect(failures).toEqual([]);

    h.clock.advance(POLICY.deadlineMs);
    await recoverAll();
    const parked = await retrieve(created.payment_id);
    expect(parked.status).toBe('requires_merchant_action');
    expect(parked.error_code).toBe('rail_unresolved');
    expect(await eventTypes(created.payment_id)).toEqual(['action_required']);
    // Money may have moved: it cannot be cancelled or confirmed again.
    await expectApiError(await request('POST', `/payments/${created.payment_id}/cancel`, { cancellation_reason: 'requested_by_customer' }), 'ERR_4003');
    await expectApiError(await request('POST', `/payments/${created.payment_id}/confirm`, {}), 'ERR_4003');

    // The rail answers again: an operator's force_sync applies its answer.
    h.faults.clear();
    const settled = await retrieve(created.payment_id, true);
    expect(settled.status).toBe('succeeded');
    expect(await eventTypes(created.payment_id)).toEqual(['action_required', 'payment_succeeded']);
  });

  test('two instances recovering at once: one takes the lease, one event', async () => {
    const created = await createPayment();
    h.faults.inject('throw_after_accept', { call: 'authorize', rail: 'upi' });
    await confirm(created.payment_id);
    h.clock.advance(POLICY.recoverAfterMs + 1);
    const other = new StuckObjectRecovery(h.core, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) });
    const steps = await Promise.all([recovery.step(), other.step(), recovery.step(), other.step()]);
    expect(steps.reduce((sum, step) => sum + step.resolved, 0)).toBe(1);
    expect((await retrieve(created.payment_id)).status).toBe('succeeded');
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
  });

  test('an instance that listed a payment before another resolved it reads it again under the lease and leaves it', async () => {
    const created = await createPayment();
    h.faults.inject('throw_after_accept', { call: 'authorize', rail: 'upi' });
    await confirm(created.payment_id);
    h.clock.advance(POLICY.recoverAfterMs + 1);
    const before = new Date(h.clock.now().getTime() - POLICY.recoverAfterMs);
    const listedEarlier = (await h.store.paymentList.listPaymentsProcessingBefore(before, 100)).filter((p) => p.paymentId === created.payment_id);
    expect(listedEarlier.map((p) => p.status)).toEqual(['processing']);
    expect((await recovery.step()).resolved).toBe(1);
    // The late instance works from its earlier list: the lease is free again, the payment is not stuck any more.
    const store = new Proxy(h.core.store, {
      get(target, property) {
        // The store's own list, but for the one method: a spread copy would lose the methods of its class.
        if (property === 'paymentList') return Object.assign(Object.create(target.paymentList) as typeof target.paymentList, { listPaymentsProcessingBefore: async () => listedEarlier });
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const late = new StuckObjectRecovery({ ...h.core, store }, { batchSize: 100, onError: (object, error) => failures.push({ object, error }) });
    expect(await late.step()).toEqual({ checked: 0, resolved: 0 });
    expect((await retrieve(created.payment_id)).status).toBe('succeeded');
    expect(await eventTypes(created.payment_id)).toEqual(['payment_succeeded']);
  });

  test('the rail took the refund, then the call failed: pending until recovery, then succeeded with one event', async () => {
    const paid = await succeededPayment();
    h.faults.inject('throw_after_accept', { call: 'refund', rail: 'upi' });
    const refund = await expectOk<RefundResponse>(await request('POST', '/refunds', { payment_id: paid.payment_id, amount: 4000 }));
    expect(refund.status).toBe('pending');
    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    const recovered = await expectOk<RefundResponse>(await request('GET', `/refunds/${refund.refund_id}`));
    expect(recovered.status).toBe('succeeded');
    expect(await eventTypes(refund.refund_id)).toEqual(['refund_succeeded']);
  });

  test('the rail never received the refund: recovery sends it again under the same refund_id', async () => {
    const paid = await succeededPayment();
    h.faults.inject('throw_before_accept', { call: 'refund', rail: 'upi' });
    const refund = await expectOk<RefundResponse>(await request('POST', '/refunds', { payment_id: paid.payment_id, amount: 10_000 }));
    expect(refund.status).toBe('pending');
    // Its amount stays reserved meanwhile: nothing more can be refunded.
    await expectApiError(await request('POST', '/refunds', { payment_id: paid.payment_id, amount: 100 }), 'ERR_4008', 'amount');
    h.clock.advance(POLICY.recoverAfterMs + 1);
    await recoverAll();
    expect((await expectOk<RefundResponse>(await request('GET', `/refunds/${refund.refund_id}`))).status).toBe('succeeded');
    expect(await eventTypes(refund.refund_id)).toEqual(['refund_succeeded']);
  });

  test('a refund the rail never settles goes to review with refund_review at the deadline, its amount still reserved', async () => {
    const paid = await succeededPayment();
    h.faults.inject('throw_after_accept', { call: 'refund', rail: 'upi' });
    h.faults.inject('throw_before_accept', { call: 'lookup', rail: 'upi', times: 1000 });
    const refund = await expectOk<RefundResponse>(await request('POST', '/refunds', { payment_id: paid.payment_id, amount: 10_000 }));
    h.clock.advance(POLICY.deadlineMs + 1);
    await recoverAll();
    const parked = await expectOk<RefundResponse>(await request('GET', `/refunds/${refund.refund_id}`));
    expect(parked.status).toBe('review');
    expect(await eventTypes(refund.refund_id)).toEqual(['refund_review']);
    await expectApiError(await request('POST', '/refunds', { payment_id: paid.payment_id, amount: 100 }), 'ERR_4008', 'amount');
  });
});
