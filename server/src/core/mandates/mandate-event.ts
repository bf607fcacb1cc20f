import type { MandateRecord } from '../../storage/mandates/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { recordObjectEvent } from '../shared/outbox-event';
import { MANDATE_EVENT_FOR_STATUS } from './mandate-transitions';
import { toMandateResponse } from './mandate-view';

/** Writes the event the mandate's status announces, in the caller's transaction (the one that changed it). */
export async function recordMandateEvent(deps: Pick<CoreDeps, 'ids'>, tx: Stores, mandate: MandateRecord, now: Date): Promise<void> {
  const eventType = MANDATE_EVENT_FOR_STATUS[mandate.status];
  if (eventType === undefined) return;
  await recordObjectEvent(
    deps,
    tx,
    { scope: mandate, eventType, objectType: 'mandate', objectId: mandate.mandateId, contentType: 'mandate_details', object: toMandateResponse(mandate) },
    now,
  );
}
