import { DISPUTE_STATUSES, type DisputeAggregateQuery, type DisputeStatus } from '../../../../protocol/api/disputes';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * GET /disputes/aggregate (secret key): the number of disputes per status created within [start_time, end_time]
 * (end_time defaults to now). Every status is present, with 0 when there is none.
 */
export async function aggregateDisputes(deps: CoreDeps, auth: AuthContext, query: DisputeAggregateQuery): Promise<Record<DisputeStatus, number>> {
  const to = query.end_time === undefined ? deps.clock.now() : new Date(query.end_time);
  const counts = await deps.store.disputes.countDisputesByStatus(auth, new Date(query.start_time), to);
  return Object.fromEntries(DISPUTE_STATUSES.map((status) => [status, counts[status] ?? 0])) as Record<DisputeStatus, number>;
}
