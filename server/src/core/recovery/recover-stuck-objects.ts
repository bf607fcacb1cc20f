import type { Scope } from '../../kernel/store-types';
import { recoverUnsettledPayment } from '../payments/recover-payment';
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
 * The recovery job: finds payments left in processing and refunds left in pending for longer than
 * RecoveryPolicy.recoverAfterMs (a crash between the claim and the rail's answer, a rail that threw or timed out)
 * and asks their rail again (recover-payment.ts, recover-refund.ts). Several instances may run it: each object is
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
      const after = await this.leased(object, now, () => recoverUnsettledPayment(this.deps, payment), (p) => p.status !== 'processing');
      if (after === undefined) continue;
      checked += 1;
      if (after.status !== 'processing') resolved += 1;
    }
    for (const refund of await store.refunds.listRefundsPendingBefore(before, this.options.batchSize)) {
      const object: StuckObject = { accountId: refund.accountId, mode: refund.mode, objectType: 'refund', objectId: refund.refundId };
      const after = await this.leased(object, now, () => recoverPendingRefund(this.deps, refund), (r) => r.status !== 'pending');
      if (after === undefined) continue;
      checked += 1;
      if (after.status !== 'pending') resolved += 1;
    }
    return { checked, resolved };
  }

  /**
   * Runs `work` if this instance gets the object's lease; undefined when another holds it or the work failed. The
   * lease is dropped once the object is resolved; otherwise it runs out, which spaces the next question to the rail.
   */
  private async leased<T>(object: StuckObject, now: Date, work: () => Promise<T>, isResolved: (result: T) => boolean): Promise<T | undefined> {
    const policy = this.deps.recovery ?? DEFAULT_RECOVERY_POLICY;
    const leases = this.deps.store.recoveryLeases;
    if (!(await leases.takeRecoveryLease(object, new Date(now.getTime() + policy.leaseMs), now))) return undefined;
    try {
      const result = await work();
      if (isResolved(result)) await leases.dropRecoveryLease(object);
      return result;
    } catch (error) {
      this.options.onError(object, error);
      return undefined;
    }
  }
}
