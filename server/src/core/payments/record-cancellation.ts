import type { PaymentStatus } from '../../../../protocol/payments';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { Scope } from '../../kernel/store-types';
import type { PaymentRecord } from '../../storage/payments/records';
import type { CoreDeps } from '../shared/deps';
import { LOST, type Lost } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { withCancelledBy } from './rail-hold-changes';

export interface Cancellation {
  /** The status the transition table gave: `cancelled`, or `cancelled_post_capture`. */
  to: PaymentStatus;
  reason: string | null;
  /** The request that cancelled it, kept in railState: its keyed re-run answers the cancelled payment. */
  requestReference: string;
  /** railState as it stays (without the void's or the cancel's entry, once the rail answered). */
  railState: JsonObject | null;
}

/**
 * Records the cancellation of `current` (a cancel, or a cancel after capture; here or once the rail answered) in one
 * transaction, written only if nothing changed the payment since it was read: the status, nothing capturable, the
 * reason, the newest attempt voided and the event. A cancel before capture also ends the customer's wait: no next
 * action, and a pending save of its instrument goes.
 */
export function recordCancellation(deps: CoreDeps, scope: Scope, current: PaymentRecord, cancellation: Cancellation, now: Date): Promise<PaymentRecord | Lost> {
  const beforeCapture = cancellation.to === 'cancelled';
  return deps.store.transaction(async (tx) => {
    const next = await tx.payments.updatePaymentIfVersion(scope, current.paymentId, current.version, {
      status: cancellation.to,
      amountCapturable: 0,
      ...(beforeCapture ? { nextAction: null } : {}),
      cancellationReason: cancellation.reason,
      railState: withCancelledBy(cancellation.railState, cancellation.requestReference),
      updatedAt: now,
    });
    if (next === undefined) return LOST;
    await tx.attempts.updateLatestAttempt(scope, current.paymentId, { status: 'voided', cancellationReason: cancellation.reason, updatedAt: now });
    if (beforeCapture) await tx.pendingMethodSaves.takePendingSave(scope, current.paymentId);
    await recordPaymentEvent(deps, tx, next, now);
    return next;
  });
}
