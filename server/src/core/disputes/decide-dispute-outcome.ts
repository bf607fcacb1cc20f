import type { SimulateDisputeOutcomeRequest } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { recordDisputeEvent } from './dispute-event';
import { decideDisputeTransition, releasesDisputedAmount } from './dispute-transitions';
import { disputeStatusRefusal, findDisputeOrThrow } from './find-dispute';

/**
 * POST /simulator/disputes/{dispute_id}/outcome (test mode, secret key): the simulator rail decides the dispute,
 * won or lost, from dispute_opened or dispute_challenged (ERR_4062 from a final status). The new status, its event
 * (dispute_won, dispute_lost) and, when won, the release of the amount the dispute held on the payment are written in
 * one transaction.
 */
export async function decideDisputeOutcome(deps: CoreDeps, auth: AuthContext, disputeId: string, body: SimulateDisputeOutcomeRequest): Promise<DisputeRecord> {
  const dispute = await findDisputeOrThrow(deps.store, auth, disputeId);
  const decision = decideDisputeTransition(dispute.status, 'rail_outcome', { outcome: body.outcome });
  if (!decision.allowed) throw disputeStatusRefusal(dispute, 'be decided');
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const updated = await tx.disputes.updateDispute(auth, disputeId, { status: decision.to, updatedAt: now }, [dispute.status]);
    if (updated === undefined) throw disputeStatusRefusal(await findDisputeOrThrow(tx, auth, disputeId), 'be decided');
    // Won: the merchant keeps the money again, refundable and disputable as before the dispute.
    if (releasesDisputedAmount(dispute.status, updated.status)) await tx.disputes.releaseDisputedAmount(auth, updated.paymentId, updated.amount);
    await recordDisputeEvent(deps, tx, updated, now);
    return updated;
  });
}
