import type { RailName } from '../../kernel/account-settings-types';
import type { LookupRequest, NotReceived, RefundOutcome } from '../../rails/rail-adapter';
import type { RefundRecord } from '../../storage/refunds/records';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from '../shared/deps';
import { callRail } from '../shared/rail-call';
import { applyRefundOutcome, recordRefundEvent } from './refund-outcome';
import { decideRefundTransition } from './refund-transitions';

/**
 * Asks the rail what became of a refund whose create got no answer (the process died, the rail threw or timed out),
 * under its refund_id, and applies the answer with its event:
 * - an answer: as the create would have applied it;
 * - the rail never received it: it is sent again under the same refund_id (the rail refunds once per reference);
 * - no answer again: the refund stays pending until RecoveryPolicy.deadlineMs after its create, then goes to review
 *   with a refund_review event, for an operator; its amount stays reserved (docs/reliability.md).
 * Any other refund is returned unchanged.
 */
export async function recoverPendingRefund(deps: CoreDeps, refund: RefundRecord): Promise<RefundRecord> {
  if (refund.status !== 'pending') return refund;
  const payment = await deps.store.payments.findPayment(refund, refund.paymentId);
  const adapter = payment?.rail == null ? undefined : deps.rails.adapterFor(refund.mode, payment.rail as RailName);
  const now = deps.clock.now();
  const policy = deps.recovery ?? DEFAULT_RECOVERY_POLICY;
  const lookup = adapter?.lookupRefund?.bind(adapter);
  const send = adapter?.refund?.bind(adapter);
  if (payment !== undefined && lookup !== undefined && send !== undefined) {
    const request: LookupRequest = { accountId: refund.accountId, mode: refund.mode, reference: refund.refundId, now };
    const looked = await callRail<RefundOutcome | NotReceived>(deps, () => lookup(request));
    let answer: RefundOutcome | undefined;
    if (looked.kind === 'answered' && looked.answer.kind !== 'not_received') answer = looked.answer;
    // Within the call limit the create may still be on its way to the rail: too early to send it again. The create
    // called the rail at createdAt; updatedAt also moves when the merchant updates reason or metadata.
    const settled = now.getTime() - refund.createdAt.getTime() >= policy.railCallTimeoutMs;
    if (looked.kind === 'answered' && looked.answer.kind === 'not_received' && settled) {
      const sent = await callRail(deps, () =>
        send({
          accountId: refund.accountId,
          mode: refund.mode,
          refundId: refund.refundId,
          paymentId: refund.paymentId,
          paymentReference: payment.railReference,
          amount: refund.amount,
          currency: refund.currency,
          reason: refund.reason,
          now,
        }),
      );
      if (sent.kind === 'answered') answer = sent.answer;
    }
    if (answer !== undefined && answer.kind !== 'pending') return applyRefundOutcome(deps, refund, answer);
  }
  if (now.getTime() - refund.createdAt.getTime() >= policy.deadlineMs) return moveToReview(deps, refund, now);
  return refund;
}

async function moveToReview(deps: CoreDeps, refund: RefundRecord, now: Date): Promise<RefundRecord> {
  const decision = decideRefundTransition(refund.status, 'recovery_deadline', {});
  if (!decision.allowed) return refund;
  const updated = await deps.store.transaction(async (tx) => {
    const next = await tx.refunds.updateRefund(
      refund,
      refund.refundId,
      {
        status: decision.to,
        errorCode: 'rail_unresolved',
        errorMessage: 'The rail has not said whether this refund was paid out; check with the rail before acting on it.',
        updatedAt: now,
      },
      [refund.status],
    );
    if (next !== undefined) await recordRefundEvent(deps, tx, next, now);
    return next;
  });
  return updated ?? (await deps.store.refunds.findRefund(refund, refund.refundId)) ?? refund;
}
