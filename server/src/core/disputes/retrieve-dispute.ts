import type { DisputeRecord } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findDisputeOrThrow } from './find-dispute';

/**
 * GET /disputes/{dispute_id} (secret key). force_sync asks the rail for news; the simulator pushes every change as
 * it happens, so there is nothing to fetch (docs/open-points.md).
 */
export async function retrieveDispute(deps: CoreDeps, auth: AuthContext, disputeId: string): Promise<DisputeRecord> {
  return findDisputeOrThrow(deps.store, auth, disputeId);
}
