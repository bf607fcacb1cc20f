import { type Kysely, type Selectable, sql } from 'kysely';
import type { Currency } from '../../../../protocol/currency';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { RefundStatus, RefundType } from '../../../../protocol/api/refunds';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { RefundCreatedCursor, RefundFilter, RefundPage, RefundPatch, RefundRecord } from './records';
import type { RefundsTable } from './schema';
import type { RefundsStores, RefundStore } from './store';
import { type Db, inScope, insertResult, iso, jsonOrNull } from '../sql-rows';

function toRefund(row: Selectable<RefundsTable>): RefundRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    refundId: row.refund_id,
    paymentId: row.payment_id,
    profileId: row.profile_id,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    reason: row.reason,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as JsonObject),
    refundType: row.refund_type as RefundType,
    rail: row.rail,
    connector: row.connector,
    railReference: row.rail_reference,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    unifiedCode: row.unified_code,
    unifiedMessage: row.unified_message,
    requestFingerprint: row.request_fingerprint,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function fromRefund(refund: RefundRecord): RefundsTable {
  return {
    account_id: refund.accountId,
    mode: refund.mode,
    refund_id: refund.refundId,
    payment_id: refund.paymentId,
    profile_id: refund.profileId,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    metadata: jsonOrNull(refund.metadata),
    refund_type: refund.refundType,
    rail: refund.rail,
    connector: refund.connector,
    rail_reference: refund.railReference,
    error_code: refund.errorCode,
    error_message: refund.errorMessage,
    unified_code: refund.unifiedCode,
    unified_message: refund.unifiedMessage,
    request_fingerprint: refund.requestFingerprint,
    created_at: iso(refund.createdAt),
    updated_at: iso(refund.updatedAt),
  };
}

function patchColumns(patch: RefundPatch): Partial<RefundsTable> {
  const columns: Partial<RefundsTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.reason !== undefined) columns.reason = patch.reason;
  if (patch.metadata !== undefined) columns.metadata = jsonOrNull(patch.metadata);
  if (patch.railReference !== undefined) columns.rail_reference = patch.railReference;
  if (patch.errorCode !== undefined) columns.error_code = patch.errorCode;
  if (patch.errorMessage !== undefined) columns.error_message = patch.errorMessage;
  if (patch.unifiedCode !== undefined) columns.unified_code = patch.unifiedCode;
  if (patch.unifiedMessage !== undefined) columns.unified_message = patch.unifiedMessage;
  return columns;
}

/** The Kysely implementation of RefundStore, on SQLite or PostgreSQL. */
export class SqlRefundStore implements RefundStore {
  constructor(private readonly db: Db) {}

  async listRefundsPendingBefore(before: Date, limit: number, after?: RefundCreatedCursor): Promise<RefundRecord[]> {
    let select = this.db.selectFrom('refunds').selectAll().where('status', '=', 'pending').where('created_at', '<', iso(before));
    if (after !== undefined) {
      // One row value: PostgreSQL bounds the index scan with it (an OR of the first column's cases is only a filter).
      select = select.where((eb) => eb(eb.refTuple('created_at', 'account_id', 'mode', 'refund_id'), '>', eb.tuple(iso(after.createdAt), after.accountId, after.mode, after.refundId)));
    }
    const rows = await select.orderBy('created_at').orderBy('account_id').orderBy('mode').orderBy('refund_id').limit(limit).execute();
    return rows.map(toRefund);
  }

  async insertRefund(refund: RefundRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('refunds')
      .values(fromRefund(refund))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findRefund(scope: Scope, refundId: string): Promise<RefundRecord | undefined> {
    const row = await this.db
      .selectFrom('refunds')
      .selectAll()
      .where(inScope(scope))
      .where('refund_id', '=', refundId)
      .executeTakeFirst();
    return row && toRefund(row);
  }

  async updateRefund(
    scope: Scope,
    refundId: string,
    patch: RefundPatch,
    expectedStatuses?: readonly RefundStatus[],
  ): Promise<RefundRecord | undefined> {
    if (expectedStatuses !== undefined && expectedStatuses.length === 0) return undefined;
    let query = this.db
      .updateTable('refunds')
      .set(patchColumns(patch))
      .where(inScope(scope))
      .where('refund_id', '=', refundId);
    if (expectedStatuses !== undefined) query = query.where('status', 'in', [...expectedStatuses]);
    const row = await query.returningAll().executeTakeFirst();
    return row && toRefund(row);
  }

  async listRefunds(scope: Scope, filter: RefundFilter): Promise<RefundPage> {
    let query = this.db
      .selectFrom('refunds')
      .where(inScope(scope))
      .where('created_at', '>=', iso(filter.createdFrom))
      .where('created_at', '<=', iso(filter.createdTo));
    if (filter.paymentId !== undefined) query = query.where('payment_id', '=', filter.paymentId);
    if (filter.refundId !== undefined) query = query.where('refund_id', '=', filter.refundId);
    if (filter.profileId !== undefined) query = query.where('profile_id', '=', filter.profileId);
    if (filter.minAmount !== undefined) query = query.where('amount', '>=', filter.minAmount);
    if (filter.maxAmount !== undefined) query = query.where('amount', '<=', filter.maxAmount);
    if (filter.connectors !== undefined && filter.connectors.length > 0) query = query.where('connector', 'in', [...filter.connectors]);
    if (filter.currencies !== undefined && filter.currencies.length > 0) query = query.where('currency', 'in', [...filter.currencies]);
    if (filter.statuses !== undefined && filter.statuses.length > 0) query = query.where('status', 'in', [...filter.statuses]);
    if (filter.merchantConnectorIds !== undefined && filter.merchantConnectorIds.length > 0) {
      // No refund carries a merchant connector id yet (docs/open-points.md).
      query = query.where(sql<boolean>`1 = 0`);
    }
    const counted = await query.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    const rows = await query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('refund_id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return { totalCount: Number(counted.count), refunds: rows.map(toRefund) };
  }

  async listRefundsOfPayment(scope: Scope, paymentId: string, limit: number): Promise<RefundRecord[]> {
    const rows = await this.db
      .selectFrom('refunds')
      .selectAll()
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .orderBy('created_at', 'desc')
      .orderBy('refund_id', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map(toRefund);
  }

  async findRefundedAmount(scope: Scope, paymentId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('payments')
      .select('amount_refunded')
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.amount_refunded ?? 0);
  }

  async reserveRefundAmount(
    scope: Scope,
    paymentId: string,
    amount: number,
    refundableStatuses: readonly PaymentStatus[],
  ): Promise<boolean> {
    if (refundableStatuses.length === 0) return false;
    // One conditional UPDATE: PostgreSQL re-checks the WHERE clause on the newest row version after waiting for
    // a concurrent writer's row lock; SQLite runs one writer at a time. Either way the sum stays within bounds. What
    // disputes hold (amount_disputed) is not refundable: the customer has it back already, or may get it.
    const result = await this.db
      .updateTable('payments')
      .set({ amount_refunded: sql<number>`amount_refunded + ${amount}`, version: sql<number>`version + 1` })
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .where('status', 'in', [...refundableStatuses])
      .where(sql<boolean>`amount_refunded + amount_disputed + ${amount} <= coalesce(amount_received, 0)`)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async releaseRefundAmount(scope: Scope, paymentId: string, amount: number): Promise<void> {
    await this.db
      .updateTable('payments')
      .set({ amount_refunded: sql<number>`amount_refunded - ${amount}`, version: sql<number>`version + 1` })
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .execute();
  }
}

/** The refunds stores on one connection or transaction. */
export function refundsSqlStores(db: Db): RefundsStores {
  return { refunds: new SqlRefundStore(db) };
}
