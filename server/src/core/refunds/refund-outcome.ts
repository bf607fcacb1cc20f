import type { RefundOutcome } from '../../rails/rail-adapter';
import type { RefundPatch, RefundRecord } from '../../storage/refunds/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { decideRefundTransition, REFUND_EVENT_FOR_STATUS, RELEASING_REFUND_STATUSES } from './refund-transitions';
import { toRefundResponse } from './refund-view';
import { recordObjectEvent } from '../shared/outbox-event';

/** Writes the outbox event a refund's new status announces, in the caller's transaction. */
export async function recordRefundEvent(deps: CoreDeps, tx: Stores, refund: RefundRecord, now: Date): Promise<void> {
  const eventType = REFUND_EVENT_FOR_STATUS[refund.status];
  if (eventType === undefined) return;
  const object = toRefundResponse(refund);
  await recordObjectEvent(deps, tx, { scope: refund, eventType, objectType: 'refund', objectId: refund.refundId, contentType: 'refund_details', object }, now);
}

function patchFor(outcome: Exclude<RefundOutcome, { kind: 'pending' }>, now: Date): Omit<RefundPatch, 'status'> {
  if (outcome.kind === 'failed') {
    return { railReference: outcome.reference, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage, updatedAt: now };
  }
  // A refund recovery parked in review carries rail_unresolved: the rail's answer replaces it.
  return { railReference: outcome.reference, errorCode: null, errorMessage: null, updatedAt: now };
}

/**
 * Applies a rail's answer to a refund: looks the transition up in the table, updates the refund only if it is still
 * in the status it was read in, gives the reserved amount back to the payment when the refund failed, and writes
 * the refund's event, all in one transaction. If another request applied an answer first, returns the refund as
 * stored.
 */
export async function applyRefundOutcome(deps: CoreDeps, refund: RefundRecord, outcome: RefundOutcome): Promise<RefundRecord> {
  if (outcome.kind === 'pending') return refund;
  const decision = decideRefundTransition(refund.status, 'rail_result', { railResult: outcome.kind });
  if (!decision.allowed) throw new Error(`no refund transition from ${refund.status} for a ${outcome.kind} rail answer`);
  const now = deps.clock.now();
  const updated = await deps.store.transaction(async (tx) => {
    const next = await tx.refunds.updateRefund(refund, refund.refundId, { status: decision.to, ...patchFor(outcome, now) }, [refund.status]);
    if (next === undefined) return undefined;
    if (RELEASING_REFUND_STATUSES.includes(next.status)) {
      await tx.refunds.releaseRefundAmount(refund, refund.paymentId, refund.amount);
    }
    await recordRefundEvent(deps, tx, next, now);
    return next;
  });
  if (updated !== undefined) return updated;
  const current = await deps.store.refunds.findRefund(refund, refund.refundId);
  if (current === undefined) throw new Error(`refund ${refund.refundId} vanished`);
  return current;
}
