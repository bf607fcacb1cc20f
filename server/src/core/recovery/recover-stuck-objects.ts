import type { Scope } from '../../kernel/store-types';
import type { PaymentRecord } from '../../storage/payments/records';
import { capturesInProgress, railHoldChanging } from '../payments/rail-hold-changes';
import { recoverUnsettledPayment } from '../payments/recover-payment';
import { recoverHoldChanges } from '../payments/settle-hold-change';
import { recoverPendingRefund } from '../refunds/recover-refund';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from '../shared/deps';

export interface RecoveryStep {
  /** Payments and refunds this instance took a lease on and asked the rail about. */
  checked: number;
  /** Of those, the ones that left processing (payments) or pending (refunds). */
  resolved: number;
}

export interface StuckObject extends Scope {
  objectType: 'payment' | 'refund';
  objectId: string;
}

/**
 * The recovery job: finds payments left in processing, captures left pending, voids left at the rail (requires_capture
 * with nothing capturable) and refunds left in pending for longer
 * than RecoveryPolicy.recoverAfterMs (a crash between the claim and the rail's answer, a rail that threw or timed
 * out) and asks their rail again (recover-payment.ts, settle-hold-change.ts, recover-refund.ts). Several instances may run it: each object is
 * leased to one instance at a time (recovery_leases), and answers are applied only if the object is still in the
 * status it was read in, with the event in the same transaction.
 */
export class StuckObjectRecovery {
  constructor(
    private readonly deps: CoreDeps,
    private readonly options: { batchSize: number; onError(object: StuckObject, error: unknown): void },
  ) {}

  async step(): Promise<RecoveryStep> {
    const policy = this.deps.recovery ?? DEFAULT_RECOVERY_POLICY;
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - policy.recoverAfterMs);
    const { store } = this.deps;
    let checked = 0;
    let resolved = 0;
    for (const payment of await store.paymentList.listPaymentsProcessingBefore(before, this.options.batchSize)) {
      const object: StuckObject = { accountId: payment.accountId, mode: payment.mode, objectType: 'payment', objectId: payment.paymentId };
      const after = await this.leased(object, now, {
        reread: () => store.payments.findPayment(payment, payment.paymentId),
        isStuck: (p) => p.status === 'processing',
        work: (current) => recoverUnsettledPayment(this.deps, current),
      });
      if (after === undefined) continue;
      checked += 1;
      if (after.status !== 'processing') resolved += 1;
    }
    // Captures asked of the rail whose request died (crash, silent rail): asked about under their capture id.
    for (const capture of await store.captures.listCapturesPendingBefore(before, this.options.batchSize)) {
      const object: StuckObject = { accountId: capture.accountId, mode: capture.mode, objectType: 'payment', objectId: capture.paymentId };
      const isStuck = (p: PaymentRecord) => capturesInProgress(p)[capture.captureId] !== undefined;
      const after = await this.leased(object, now, {
        reread: () => store.payments.findPayment(capture, capture.paymentId),
        isStuck,
        work: (current) => recoverHoldChanges(this.deps, current),
      });
      if (after === undefined) continue;
      checked += 1;
      if (!isStuck(after)) resolved += 1;
    }
    // Voids asked of the rail whose request died (and full captures, which the loop above also finds).
    for (const payment of await store.paymentList.listPaymentsHoldChangingBefore(before, this.options.batchSize)) {
      const object: StuckObject = { accountId: payment.accountId, mode: payment.mode, objectType: 'payment', objectId: payment.paymentId };
      const after = await this.leased(object, now, {
        reread: () => store.payments.findPayment(payment, payment.paymentId),
        isStuck: railHoldChanging,
        work: (current) => recoverHoldChanges(this.deps, current),
      });
      if (after === undefined) continue;
      checked += 1;
      if (!railHoldChanging(after)) resolved += 1;
    }
    for (const refund of await store.refunds.listRefundsPendingBefore(before, this.options.batchSize)) {
      const object: StuckObject = { accountId: refund.accountId, mode: refund.mode, objectType: 'refund', objectId: refund.refundId };
      const after = await this.leased(object, now, {
        reread: () => store.refunds.findRefund(refund, refund.refundId),
        isStuck: (r) => r.status === 'pending',
        work: (current) => recoverPendingRefund(this.deps, current),
      });
      if (after === undefined) continue;
      checked += 1;
      if (after.status !== 'pending') resolved += 1;
    }
    return { checked, resolved };
  }

  /**
   * Runs `work` on the object as it stands once this instance has its lease; undefined when another holds it, when it
   * is no longer stuck (another instance resolved it, and dropped its lease, after this one listed it) or when the
   * work failed. The lease is dropped once the object is resolved; otherwise it runs out, which spaces the next
   * question to the rail.
   */
  private async leased<T>(
    object: StuckObject,
    now: Date,
    steps: { reread: () => Promise<T | undefined>; isStuck: (current: T) => boolean; work: (current: T) => Promise<T> },
  ): Promise<T | undefined> {
    const policy = this.deps.recovery ?? DEFAULT_RECOVERY_POLICY;
    const leases = this.deps.store.recoveryLeases;
    if (!(await leases.takeRecoveryLease(object, new Date(now.getTime() + policy.leaseMs), now))) return undefined;
    try {
      const current = await steps.reread();
      if (current === undefined || !steps.isStuck(current)) {
        await leases.dropRecoveryLease(object);
        return undefined;
      }
      const result = await steps.work(current);
      if (!steps.isStuck(result)) await leases.dropRecoveryLease(object);
      return result;
    } catch (error) {
      this.options.onError(object, error);
      return undefined;
    }
  }
}
