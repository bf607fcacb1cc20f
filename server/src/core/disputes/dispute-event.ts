import type { DisputeRecord } from '../../storage/disputes/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { recordObjectEvent } from '../shared/outbox-event';
import { disputeEventFor } from './dispute-transitions';
import { toDisputeResponse } from './dispute-view';

/** Writes the event a dispute's (new) status announces, in the caller's transaction. */
export async function recordDisputeEvent(deps: CoreDeps, tx: Stores, dispute: DisputeRecord, now: Date): Promise<void> {
  await recordObjectEvent(
    deps,
    tx,
    {
      scope: dispute,
      eventType: disputeEventFor(dispute.status),
      objectType: 'dispute',
      objectId: dispute.disputeId,
      contentType: 'dispute_details',
      object: toDisputeResponse(dispute),
    },
    now,
  );
}
