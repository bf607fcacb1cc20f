import type { PaymentRecord, WaitingPaymentCursor } from '../../storage/payments/records';
import type { CoreDeps } from '../shared/deps';
import { syncWithRail } from './retrieve-payment';

export interface SweepStep {
  /** Payments asked about in this step. */
  checked: number;
  /** Of those, the ones the rail's answer moved out of requires_customer_action. */
  resolved: number;
  /** True when the step reached the end of the waiting payments (the next step starts from the oldest again). */
  wrapped: boolean;
}

/**
 * Walks the payments that wait for the customer on a rail and asks each rail for its answer, as a read would.
 * Without it a pending UPI collect, bank transfer or crypto payment resolves only when somebody reads it, and the
 * merchant's webhook waits for that read. Each step takes the next `batchSize` payments in
 * (updated_at, account_id, mode, payment_id) order, so a long wait does not starve the newer ones; at the end the
 * walk starts over. Several instances may sweep at once: an answer is applied only if the payment is still in the
 * status it was read in, and the event is written in the same transaction (payment-outcome.ts).
 */
export class WaitingPaymentSweep {
  private cursor: WaitingPaymentCursor | null = null;

  constructor(
    private readonly deps: CoreDeps,
    private readonly options: { batchSize: number; onError(payment: PaymentRecord, error: unknown): void },
  ) {}

  async step(): Promise<SweepStep> {
    const payments = await this.deps.store.paymentList.listWaitingPayments(this.cursor, this.options.batchSize);
    let resolved = 0;
    for (const payment of payments) {
      try {
        const after = await syncWithRail(this.deps, payment);
        if (after.status !== 'requires_customer_action') resolved += 1;
      } catch (error) {
        // One rail failing must not stop the walk; the payment is asked again on the next lap.
        this.options.onError(payment, error);
      }
    }
    const last = payments.at(-1);
    const wrapped = payments.length < this.options.batchSize;
    this.cursor = wrapped || last === undefined ? null : { updatedAt: last.updatedAt, accountId: last.accountId, mode: last.mode, paymentId: last.paymentId };
    return { checked: payments.length, resolved, wrapped };
  }
}
