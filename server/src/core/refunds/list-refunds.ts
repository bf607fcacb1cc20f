import { REFUND_LIMITS, type ListRefundsRequest } from '../../../../protocol/api/refunds';
import type { RefundPage } from '../../storage/refunds/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * POST /refunds/list (secret key): refunds of the key's account and mode created within [start_time, end_time]
 * (end_time defaults to now), narrowed by the body's filters, newest first; limit defaults to 10 (at most 100).
 */
export async function listRefunds(deps: CoreDeps, auth: AuthContext, body: ListRefundsRequest): Promise<RefundPage> {
  return deps.store.refunds.listRefunds(auth, {
    createdFrom: new Date(body.start_time),
    createdTo: body.end_time === undefined ? deps.clock.now() : new Date(body.end_time),
    paymentId: body.payment_id,
    refundId: body.refund_id,
    profileId: body.profile_id,
    minAmount: body.amount_filter?.start_amount,
    maxAmount: body.amount_filter?.end_amount,
    connectors: body.connector,
    merchantConnectorIds: body.merchant_connector_id,
    // Repeats count once: every value is a query parameter, and the database takes a bounded number of them.
    currencies: distinct(body.currency),
    statuses: distinct(body.refund_status),
    limit: body.limit ?? REFUND_LIMITS.listDefaultLimit,
    offset: body.offset ?? 0,
  });
}

function distinct<T>(values: readonly T[] | undefined): T[] | undefined {
  return values === undefined ? undefined : [...new Set(values)];
}
