import type { DisputeRecord } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { recordDisputeEvent } from './dispute-event';
import { decideDisputeTransition } from './dispute-transitions';
import { disputeStatusRefusal, findDisputeOrThrow } from './find-dispute';

/**
 * POST /disputes/accept/{dispute_id} (secret key): the merchant concedes; the dispute becomes dispute_accepted,
 * which is final (the disputed amount stays with the customer), and dispute_accepted is written in the same
 * transaction. Any other status than dispute_opened: ERR_4062.
 */
export async function acceptDispute(deps: CoreDeps, auth: AuthContext, disputeId: string): Promise<DisputeRecord> {
  const dispute = await findDisputeOrThrow(deps.store, auth, disputeId);
  const decision = decideDisputeTransition(dispute.status, 'accept');
  if (!decision.allowed) throw disputeStatusRefusal(dispute, 'be accepted');
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const updated = await tx.disputes.updateDispute(auth, disputeId, { status: decision.to, updatedAt: now }, [dispute.status]);
    if (updated === undefined) throw disputeStatusRefusal(await findDisputeOrThrow(tx, auth, disputeId), 'be accepted');
    await recordDisputeEvent(deps, tx, updated, now);
    return updated;
  });
}
