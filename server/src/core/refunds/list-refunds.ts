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
    createdFrom: storableInstant(new Date(body.start_time)),
    createdTo: storableInstant(body.end_time === undefined ? deps.clock.now() : new Date(body.end_time)),
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

/** The first and last instants whose ISO text has a four-digit year, as created_at is stored. */
const EARLIEST = new Date('0000-01-01T00:00:00.000Z');
const LATEST = new Date('9999-12-31T23:59:59.999Z');

/**
 * The instant within the years 0000..9999. An RFC 3339 time of year 9999 with a negative offset is in year 10000 in
 * UTC, whose ISO text (`+010000-…`) sorts before every stored created_at, and one of year 0000 with a positive offset
 * in year -1 (`-000001-…`): compared as text, a start_time past 9999 matched every refund and an end_time past it none.
 */
function storableInstant(date: Date): Date {
  if (date.getTime() > LATEST.getTime()) return LATEST;
  if (date.getTime() < EARLIEST.getTime()) return EARLIEST;
  return date;
}
