import { DISPUTE_LIMITS, type ListDisputesQuery } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * GET /disputes/list (secret key): the disputes of the key's account and mode created up to end_time (default now)
 * and from start_time when given, narrowed by the query's filters, newest first; limit defaults to 10 (at most 100).
 * An account on which nothing raises disputes answers an empty array (spec "not live today" 6).
 */
export async function listDisputes(deps: CoreDeps, auth: AuthContext, query: ListDisputesQuery): Promise<DisputeRecord[]> {
  return deps.store.disputes.listDisputes(auth, {
    createdFrom: query.start_time === undefined ? undefined : new Date(query.start_time),
    createdTo: query.end_time === undefined ? deps.clock.now() : new Date(query.end_time),
    disputeId: query.dispute_id,
    paymentId: query.payment_id,
    profileId: query.profile_id,
    statuses: query.dispute_status,
    stages: query.dispute_stage,
    reason: query.reason,
    currencies: query.currency,
    merchantConnectorId: query.merchant_connector_id,
    limit: query.limit ?? DISPUTE_LIMITS.listDefaultLimit,
    offset: query.offset ?? 0,
  });
}
