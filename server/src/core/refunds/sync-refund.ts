import type { RailName } from '../../kernel/account-settings-types';
import type { NotReceived, RefundOutcome } from '../../rails/rail-adapter';
import type { RefundRecord } from '../../storage/refunds/records';
import type { CoreDeps } from '../shared/deps';
import { callRail } from '../shared/rail-call';
import { applyRefundOutcome } from './refund-outcome';
import { decideRefundTransition } from './refund-transitions';

/**
 * force_sync=true (Hyperswitch): asks the rail what became of a refund it has not settled (pending, or review: the
 * rail's own, or recovery's after its deadline) under the refund_id, and applies the answer where the transition
 * table has a row for it, with its event. No answer, or an answer with no row: the refund as it is. Not received: a
 * pending refund is sent again by the recovery job, not by a read; one in review fails (rail_not_reached).
 */
export async function syncRefundWithRail(deps: CoreDeps, refund: RefundRecord): Promise<RefundRecord> {
  if (refund.status !== 'pending' && refund.status !== 'review') return refund;
  const payment = await deps.store.payments.findPayment(refund, refund.paymentId);
  const adapter = payment?.rail == null ? undefined : deps.rails.adapterFor(refund.mode, payment.rail as RailName);
  const lookup = adapter?.lookupRefund?.bind(adapter);
  if (lookup === undefined) return refund;
  const looked = await callRail<RefundOutcome | NotReceived>(deps, () =>
    lookup({ accountId: refund.accountId, mode: refund.mode, reference: refund.refundId, now: deps.clock.now() }),
  );
  if (looked.kind !== 'answered' || looked.answer.kind === 'pending') return refund;
  // Past the recovery's deadline (review), a rail that never received the refund will not pay it: it fails, and its
  // amount is given back, as a payment the rail never received fails. A pending one is the recovery job's to send again.
  const answer: RefundOutcome | NotReceived =
    looked.answer.kind === 'not_received' && refund.status === 'review'
      ? { kind: 'failed', reference: refund.refundId, errorCode: 'rail_not_reached', errorMessage: 'The rail never received this refund; nothing was paid out.' }
      : looked.answer;
  if (answer.kind === 'not_received') return refund;
  if (!decideRefundTransition(refund.status, 'rail_result', { railResult: answer.kind }).allowed) return refund;
  return applyRefundOutcome(deps, refund, answer);
}
