import { type Selectable, sql } from 'kysely';
import type { Currency } from '../../../../protocol/currency';
import type { DisputeStage, DisputeStatus } from '../../../../protocol/api/disputes';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { dateOrNull, type Db, insertResult, inScope, iso, isoOrNull } from '../sql-rows';
import type { DisputeFacets, DisputeFilter, DisputePatch, DisputeRecord, Evidence } from './records';
import type { DisputesTable } from './schema';
import type { DisputesStores, DisputeStore } from './store';

function toDispute(row: Selectable<DisputesTable>): DisputeRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    disputeId: row.dispute_id,
    paymentId: row.payment_id,
    profileId: row.profile_id,
    amount: Number(row.amount),
    currency: row.currency as Currency,
    stage: row.stage,
    status: row.status,
    reason: row.reason,
    rail: row.rail,
    connector: row.connector,
    merchantConnectorId: row.merchant_connector_id,
    evidence: JSON.parse(row.evidence) as Evidence,
    evidenceSubmittedAt: dateOrNull(row.evidence_submitted_at),
    challengeRequiredBy: dateOrNull(row.challenge_required_by),
    isAlreadyRefunded: Number(row.is_already_refunded) === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function fromDispute(dispute: DisputeRecord): DisputesTable {
  return {
    account_id: dispute.accountId,
    mode: dispute.mode,
    dispute_id: dispute.disputeId,
    payment_id: dispute.paymentId,
    profile_id: dispute.profileId,
    amount: dispute.amount,
    currency: dispute.currency,
    stage: dispute.stage,
    status: dispute.status,
    reason: dispute.reason,
    rail: dispute.rail,
    connector: dispute.connector,
    merchant_connector_id: dispute.merchantConnectorId,
    evidence: JSON.stringify(dispute.evidence),
    evidence_submitted_at: isoOrNull(dispute.evidenceSubmittedAt),
    challenge_required_by: isoOrNull(dispute.challengeRequiredBy),
    is_already_refunded: dispute.isAlreadyRefunded ? 1 : 0,
    created_at: iso(dispute.createdAt),
    updated_at: iso(dispute.updatedAt),
  };
}

function patchColumns(patch: DisputePatch): Partial<DisputesTable> {
  const columns: Partial<DisputesTable> = { updated_at: iso(patch.updatedAt) };
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.evidence !== undefined) columns.evidence = JSON.stringify(patch.evidence);
  if (patch.evidenceSubmittedAt !== undefined) columns.evidence_submitted_at = isoOrNull(patch.evidenceSubmittedAt);
  return columns;
}

/** The Kysely implementation of DisputeStore, on SQLite or PostgreSQL. */
export class SqlDisputeStore implements DisputeStore {
  constructor(private readonly db: Db) {}

  async insertDispute(dispute: DisputeRecord): Promise<InsertResult> {
    const result = await this.db.insertInto('disputes').values(fromDispute(dispute)).onConflict((oc) => oc.doNothing()).executeTakeFirst();
    return insertResult(result);
  }

  async findDispute(scope: Scope, disputeId: string): Promise<DisputeRecord | undefined> {
    const row = await this.db.selectFrom('disputes').selectAll().where(inScope(scope)).where('dispute_id', '=', disputeId).executeTakeFirst();
    return row && toDispute(row);
  }

  async updateDispute(
    scope: Scope,
    disputeId: string,
    patch: DisputePatch,
    expectedStatuses: readonly DisputeStatus[],
    expectedEvidence?: Evidence,
  ): Promise<DisputeRecord | undefined> {
    if (expectedStatuses.length === 0) return undefined;
    let query = this.db
      .updateTable('disputes')
      .set(patchColumns(patch))
      .where(inScope(scope))
      .where('dispute_id', '=', disputeId)
      .where('status', 'in', [...expectedStatuses]);
    // The column holds JSON.stringify of the evidence, and JSON.parse keeps its keys' order: the text read compares equal.
    if (expectedEvidence !== undefined) query = query.where('evidence', '=', JSON.stringify(expectedEvidence));
    const row = await query.returningAll().executeTakeFirst();
    return row && toDispute(row);
  }

  async listDisputes(scope: Scope, filter: DisputeFilter): Promise<DisputeRecord[]> {
    let query = this.db.selectFrom('disputes').selectAll().where(inScope(scope)).where('created_at', '<=', iso(filter.createdTo));
    if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', iso(filter.createdFrom));
    if (filter.disputeId !== undefined) query = query.where('dispute_id', '=', filter.disputeId);
    if (filter.paymentId !== undefined) query = query.where('payment_id', '=', filter.paymentId);
    if (filter.profileId !== undefined) query = query.where('profile_id', '=', filter.profileId);
    if (filter.reason !== undefined) query = query.where('reason', '=', filter.reason);
    if (filter.merchantConnectorId !== undefined) query = query.where('merchant_connector_id', '=', filter.merchantConnectorId);
    if (filter.statuses !== undefined && filter.statuses.length > 0) query = query.where('status', 'in', [...filter.statuses]);
    if (filter.stages !== undefined && filter.stages.length > 0) query = query.where('stage', 'in', [...filter.stages]);
    if (filter.currencies !== undefined && filter.currencies.length > 0) query = query.where('currency', 'in', [...filter.currencies]);
    const rows = await query.orderBy('created_at', 'desc').orderBy('dispute_id', 'desc').limit(filter.limit).offset(filter.offset).execute();
    return rows.map(toDispute);
  }

  async countDisputesByStatus(scope: Scope, from: Date, to: Date): Promise<Partial<Record<DisputeStatus, number>>> {
    const rows = await this.db
      .selectFrom('disputes')
      .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
      .where(inScope(scope))
      .where('created_at', '>=', iso(from))
      .where('created_at', '<=', iso(to))
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
  }

  async findDisputeFacets(scope: Scope): Promise<DisputeFacets> {
    const distinct = async <C extends 'currency' | 'status' | 'stage' | 'merchant_connector_id'>(column: C) => {
      const rows = await this.db.selectFrom('disputes').select(column).distinct().where(inScope(scope)).orderBy(column).execute();
      return rows.map((row) => (row as Record<C, unknown>)[column]).filter((value): value is string => typeof value === 'string');
    };
    return {
      currencies: (await distinct('currency')) as Currency[],
      statuses: (await distinct('status')) as DisputeStatus[],
      stages: (await distinct('stage')) as DisputeStage[],
      merchantConnectorIds: await distinct('merchant_connector_id'),
    };
  }

  async findDisputedAmount(scope: Scope, paymentId: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('payments').select('amount_disputed').where(inScope(scope)).where('payment_id', '=', paymentId).executeTakeFirst();
    return row === undefined ? undefined : Number(row.amount_disputed ?? 0);
  }

  async holdDisputedAmount(scope: Scope, paymentId: string, amount: number, disputableStatuses: readonly PaymentStatus[]): Promise<boolean> {
    if (disputableStatuses.length === 0) return false;
    // One conditional UPDATE, as a refund's reservation (storage/refunds/sql-store.ts): PostgreSQL re-checks the WHERE
    // clause on the newest row version after waiting for a concurrent writer's row lock; SQLite has one writer.
    const result = await this.db
      .updateTable('payments')
      .set({ amount_disputed: sql<number>`amount_disputed + ${amount}`, version: sql<number>`version + 1` })
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .where('status', 'in', [...disputableStatuses])
      .where(sql<boolean>`amount_refunded + amount_disputed + ${amount} <= coalesce(amount_received, 0)`)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async releaseDisputedAmount(scope: Scope, paymentId: string, amount: number): Promise<void> {
    await this.db
      .updateTable('payments')
      .set({ amount_disputed: sql<number>`amount_disputed - ${amount}`, version: sql<number>`version + 1` })
      .where(inScope(scope))
      .where('payment_id', '=', paymentId)
      .execute();
  }
}

/** The disputes stores on one connection or transaction. */
export function disputesSqlStores(db: Db): DisputesStores {
  return { disputes: new SqlDisputeStore(db) };
}
