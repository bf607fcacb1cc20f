import type { Scope } from '../../kernel/store-types';
import type { PaymentCaptureRecord, PaymentRecord } from '../../storage/payments/records';
import type { RefundRecord } from '../../storage/refunds/records';
import { increaseClaimed } from '../payments/incremental-authorization';
import { capturesForOperator, capturesInProgress, railHoldChanging } from '../payments/rail-hold-changes';
import { recoverUnsettledPayment } from '../payments/recover-payment';
import { recoverHoldChanges } from '../payments/settle-hold-change';
import { recoverPendingRefund } from '../refunds/recover-refund';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from '../shared/deps';

/** How many batches of each kind of stuck object one step looks at when none is given. */
const DEFAULT_PAGES_PER_STEP = 10;

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

export interface StuckObjectRecoveryOptions {
  /** How many objects of a kind are listed at a time. */
  batchSize: number;
  /** How many batches of each kind a step looks at, at most (default 10): the next step resumes after the last. */
  pagesPerStep?: number;
  onError(object: StuckObject, error: unknown): void;
}

/** Where this instance's next step resumes each listing: after the last object it looked at, oldest first. */
interface ResumePositions {
  processing?: PaymentRecord;
  captures?: PaymentCaptureRecord;
  holdChanging?: PaymentRecord;
  railChanging?: PaymentRecord;
  refunds?: RefundRecord;
}

/**
 * The recovery job: finds payments left in processing, captures left pending, voids left at the rail (requires_capture
 * with nothing capturable), cancels after capture and incremental authorizations left at the rail (marked in railState)
 * and refunds left in pending for longer
 * than RecoveryPolicy.recoverAfterMs (a crash between the claim and the rail's answer, a rail that threw or timed
 * out) and asks their rail again (recover-payment.ts, settle-hold-change.ts, recover-refund.ts). Several instances may run it: each object is
 * leased to one instance at a time (recovery_leases), and answers are applied only if the object is still in the
 * status it was read in, with the event in the same transaction.
 */
export class StuckObjectRecovery {
  /**
   * Kept per instance (each runs its own job): a step that stopped at its page cap before the end of a listing
   * resumes there, so objects that stay stuck for good (a rail that never answers about them) never hide the ones
   * behind them; a step that reached the end starts from the oldest again.
   */
  private readonly resumeAfter: ResumePositions = {};

  constructor(
    private readonly deps: CoreDeps,
    private readonly options: StuckObjectRecoveryOptions,
  ) {}

  async step(): Promise<RecoveryStep> {
    const policy = this.deps.recovery ?? DEFAULT_RECOVERY_POLICY;
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - policy.recoverAfterMs);
    const stepEnds = now.getTime() + policy.leaseMs;
    const { store } = this.deps;
    const counts: RecoveryStep = { checked: 0, resolved: 0 };
    const count = (stillStuck: boolean) => {
      counts.checked += 1;
      if (!stillStuck) counts.resolved += 1;
    };
    /** A stuck payment of a listing: leased, read again, recovered while `isStuck` says it still is. */
    const recoverPayment = async (payment: Scope & { paymentId: string }, isStuck: (p: PaymentRecord) => boolean, work: (object: StuckObject, p: PaymentRecord) => Promise<PaymentRecord>) => {
      const object: StuckObject = { accountId: payment.accountId, mode: payment.mode, objectType: 'payment', objectId: payment.paymentId };
      const after = await this.leased(object, { reread: () => store.payments.findPayment(payment, payment.paymentId), isStuck, work: (current) => work(object, current) });
      if (after !== undefined) count(isStuck(after));
    };
    const unsettled = (_object: StuckObject, current: PaymentRecord) => recoverUnsettledPayment(this.deps, current);
    const holdChanges = (object: StuckObject, current: PaymentRecord) => this.recoverHoldChanges(object, current);
    // Cancels after capture and incremental authorizations asked of the rail whose request died: no status shows them
    // (the payment is succeeded, partially captured or requires_capture with something capturable), its railState does.
    const railChanging = (p: PaymentRecord) => railHoldChanging(p) || increaseClaimed(p);
    const sweeps: ((ends: number) => Promise<void>)[] = [
      (ends) =>
        this.sweep(ends, 'processing', (limit, after) => store.paymentList.listPaymentsProcessingBefore(before, limit, after), (payment) =>
          recoverPayment(payment, (p) => p.status === 'processing', unsettled),
        ),
      // Captures asked of the rail whose request died (crash, silent rail): asked about under their capture id.
      (ends) =>
        this.sweep(ends, 'captures', (limit, after) => store.captures.listCapturesPendingBefore(before, limit, after), (capture) =>
          recoverPayment(capture, (p) => capturesInProgress(p)[capture.captureId] !== undefined, holdChanges),
        ),
      // Voids asked of the rail whose request died (and full captures, which the sweep above also finds).
      (ends) =>
        this.sweep(ends, 'holdChanging', (limit, after) => store.paymentList.listPaymentsHoldChangingBefore(before, limit, after), (payment) =>
          recoverPayment(payment, railHoldChanging, holdChanges),
        ),
      (ends) =>
        this.sweep(ends, 'railChanging', (limit, after) => store.paymentList.listPaymentsRailChangingBefore(before, limit, after), (payment) =>
          recoverPayment(payment, railChanging, holdChanges),
        ),
      (ends) =>
        this.sweep(ends, 'refunds', (limit, after) => store.refunds.listRefundsPendingBefore(before, limit, after), async (refund) => {
          const object: StuckObject = { accountId: refund.accountId, mode: refund.mode, objectType: 'refund', objectId: refund.refundId };
          const after = await this.leased(object, {
            reread: () => store.refunds.findRefund(refund, refund.refundId),
            isStuck: (r) => r.status === 'pending',
            work: (current) => recoverPendingRefund(this.deps, current),
          });
          if (after !== undefined) count(after.status === 'pending');
        }),
    ];
    // A step lasts about a lease at most (each silent rail call can take RecoveryPolicy.railCallTimeoutMs): each
    // listing gets its share of what is left of it, so that a listing of silent objects does not starve those after it.
    for (const [index, sweep] of sweeps.entries()) {
      const start = this.deps.clock.now().getTime();
      await sweep(start + Math.max(0, stepEnds - start) / (sweeps.length - index));
    }
    return counts;
  }

  /**
   * Lists one kind of stuck object a batch at a time, each batch after the last object of the one before (keyset, in
   * the listing's order), from where the previous step left off, and handles each. At most `pagesPerStep` batches, and
   * no object started past the listing's share of the step's time: the next step resumes after the last object
   * handled; a step that reached the end leaves the next to start from the oldest again.
   */
  private async sweep<K extends keyof ResumePositions>(
    ends: number,
    kind: K,
    list: (limit: number, after: ResumePositions[K]) => Promise<NonNullable<ResumePositions[K]>[]>,
    handle: (object: NonNullable<ResumePositions[K]>) => Promise<void>,
  ): Promise<void> {
    const { batchSize, pagesPerStep = DEFAULT_PAGES_PER_STEP } = this.options;
    let after = this.resumeAfter[kind];
    delete this.resumeAfter[kind];
    for (let page = 0; page < pagesPerStep; page += 1) {
      const batch = await list(batchSize, after);
      for (const object of batch) {
        if (this.deps.clock.now().getTime() >= ends) {
          this.resumeAfter[kind] = after;
          return;
        }
        await handle(object);
        after = object;
      }
      if (batch.length < batchSize) return;
    }
    this.resumeAfter[kind] = after;
  }

  /**
   * Recovers the payment's hold changes, and reports (onError) each capture whose rail answer could not be applied: it
   * holds the payment until an operator settles it, so it is reported each time its lease lets the job look at it.
   */
  private async recoverHoldChanges(object: StuckObject, payment: PaymentRecord): Promise<PaymentRecord> {
    const recovered = await recoverHoldChanges(this.deps, payment);
    for (const [captureId, entry] of Object.entries(capturesForOperator(recovered))) {
      const answer = entry.unapplied_answer!;
      this.options.onError(
        object,
        new Error(`capture ${captureId} of payment ${payment.paymentId} asked ${entry.amount}; the rail says it captured ${answer.amount} (${answer.reference}), which the payment cannot take: left pending for an operator`),
      );
    }
    return recovered;
  }

  /**
   * Runs `work` on the object as it stands once this instance has its lease; undefined when another holds it, when it
   * is no longer stuck (another instance resolved it, and dropped its lease, after this one listed it) or when the
   * work failed. The lease is dropped once the object is resolved; otherwise it runs out, which spaces the next
   * question to the rail.
   */
  private async leased<T>(
    object: StuckObject,
    steps: { reread: () => Promise<T | undefined>; isStuck: (current: T) => boolean; work: (current: T) => Promise<T> },
  ): Promise<T | undefined> {
    const policy = this.deps.recovery ?? DEFAULT_RECOVERY_POLICY;
    const leases = this.deps.store.recoveryLeases;
    // Read for each object: a step's rail calls take time, and a lease counted from the step's start could already
    // have run out when written, letting another instance work the object at the same time.
    const now = this.deps.clock.now();
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
