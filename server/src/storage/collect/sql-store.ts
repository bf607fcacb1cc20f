import { sql, type Selectable } from 'kysely';
import type { CollectionInstructions, CollectionStatus, SettlementStatus, UsdtNetwork } from '../../../../protocol/api/collect';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { dateOrNull, type Db, insertResult, inScope, iso, isoOrNull } from '../sql-rows';
import type { CollectionPatch, CollectionPlan, CollectionRecord, SettlementPatch, SettlementPlanKind, SettlementRecord, StatusTotal } from './records';
import type { CollectionsTable, SettlementsTable } from './schema';
import type { CollectionStore, CollectStores, DueCursor, SettlementStore } from './store';

function toCollection(row: Selectable<CollectionsTable>): CollectionRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    collectionId: row.collection_id,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency,
    country: row.country,
    method: row.method,
    customerReference: row.customer_reference,
    phoneNumber: row.phone_number,
    instructions: JSON.parse(row.instructions) as CollectionInstructions,
    plan: row.plan as CollectionPlan,
    challenge: row.challenge,
    failureReason: row.failure_reason,
    dueAt: dateOrNull(row.due_at),
    expiresAt: new Date(row.expires_at),
    receivedAt: dateOrNull(row.received_at),
    creditedAt: dateOrNull(row.credited_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function collectionPatchColumns(patch: CollectionPatch): Partial<CollectionsTable> {
  const columns: Partial<CollectionsTable> = {};
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.failureReason !== undefined) columns.failure_reason = patch.failureReason;
  if (patch.dueAt !== undefined) columns.due_at = isoOrNull(patch.dueAt);
  if (patch.receivedAt !== undefined) columns.received_at = isoOrNull(patch.receivedAt);
  if (patch.creditedAt !== undefined) columns.credited_at = isoOrNull(patch.creditedAt);
  if (patch.updatedAt !== undefined) columns.updated_at = iso(patch.updatedAt);
  return columns;
}

function toSettlement(row: Selectable<SettlementsTable>): SettlementRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    settlementId: row.settlement_id,
    status: row.status,
    currency: row.currency,
    grossAmount: Number(row.gross_amount),
    fee: Number(row.fee),
    rate: row.rate,
    rateMinorPerUsdt: Number(row.rate_minor_per_usdt),
    rateTime: new Date(row.rate_time),
    netUsdtMicro: BigInt(row.net_usdt_micro),
    walletNetwork: row.wallet_network as UsdtNetwork,
    walletAddress: row.wallet_address,
    plan: row.plan as SettlementPlanKind,
    onchainReference: row.onchain_reference,
    failureReason: row.failure_reason,
    dueAt: dateOrNull(row.due_at),
    completedAt: dateOrNull(row.completed_at),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function settlementPatchColumns(patch: SettlementPatch): Partial<SettlementsTable> {
  const columns: Partial<SettlementsTable> = {};
  if (patch.status !== undefined) columns.status = patch.status;
  if (patch.onchainReference !== undefined) columns.onchain_reference = patch.onchainReference;
  if (patch.failureReason !== undefined) columns.failure_reason = patch.failureReason;
  if (patch.dueAt !== undefined) columns.due_at = isoOrNull(patch.dueAt);
  if (patch.completedAt !== undefined) columns.completed_at = isoOrNull(patch.completedAt);
  if (patch.updatedAt !== undefined) columns.updated_at = iso(patch.updatedAt);
  return columns;
}

const SPLIT = 4294967296; // 2^32

/**
 * The sum of a non-negative bigint column as text in two halves (above and below 2^32), joined in BigInt: a plain
 * SUM reaches the driver as a float past 2^53 (SQLite) and overflows at 2^63 (SQLite's integer SUM); each half's sum
 * stays exact for 2^31 rows of amounts up to 2^53 on both engines.
 */
function exactSum(column: 'amount' | 'gross_amount') {
  return [
    sql<string>`cast(sum(${sql.ref(column)} / ${sql.lit(SPLIT)}) as text)`.as('high'),
    sql<string>`cast(sum(${sql.ref(column)} % ${sql.lit(SPLIT)}) as text)`.as('low'),
  ] as const;
}

function exactTotal(row: { high: string; low: string }): bigint {
  return BigInt(row.high) * BigInt(SPLIT) + BigInt(row.low);
}

class SqlCollectionStore implements CollectionStore {
  constructor(private readonly db: Db) {}

  async insertCollection(c: CollectionRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('collections')
      .values({
        account_id: c.accountId,
        mode: c.mode,
        collection_id: c.collectionId,
        status: c.status,
        amount: c.amount,
        currency: c.currency,
        country: c.country,
        method: c.method,
        customer_reference: c.customerReference,
        phone_number: c.phoneNumber,
        instructions: JSON.stringify(c.instructions),
        plan: c.plan,
        challenge: c.challenge,
        failure_reason: c.failureReason,
        due_at: isoOrNull(c.dueAt),
        expires_at: iso(c.expiresAt),
        received_at: isoOrNull(c.receivedAt),
        credited_at: isoOrNull(c.creditedAt),
        created_at: iso(c.createdAt),
        updated_at: iso(c.updatedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findCollection(scope: Scope, collectionId: string): Promise<CollectionRecord | undefined> {
    const row = await this.db.selectFrom('collections').selectAll().where(inScope(scope)).where('collection_id', '=', collectionId).executeTakeFirst();
    return row && toCollection(row);
  }

  async updateCollectionIfStatus(
    scope: Scope,
    collectionId: string,
    expected: readonly CollectionStatus[],
    patch: CollectionPatch,
    unexpiredAt?: Date,
  ): Promise<CollectionRecord | undefined> {
    let query = this.db
      .updateTable('collections')
      .set(collectionPatchColumns(patch))
      .where(inScope(scope))
      .where('collection_id', '=', collectionId)
      .where('status', 'in', [...expected]);
    if (unexpiredAt !== undefined) query = query.where('expires_at', '>', iso(unexpiredAt));
    const row = await query.returningAll().executeTakeFirst();
    return row && toCollection(row);
  }

  async listDueCollections(scope: Scope | null, now: Date, limit: number, after?: DueCursor & { collectionId: string }): Promise<CollectionRecord[]> {
    let query = this.db.selectFrom('collections').selectAll().where('due_at', '<=', iso(now));
    if (scope !== null) query = query.where(inScope(scope));
    if (after !== undefined) query = query.where(sql<boolean>`(due_at, account_id, mode, collection_id) > (${isoOrNull(after.dueAt)}, ${after.accountId}, ${after.mode}, ${after.collectionId})`);
    const rows = await query.orderBy('due_at').orderBy('account_id').orderBy('mode').orderBy('collection_id').limit(limit).execute();
    return rows.map(toCollection);
  }

  async collectionTotals(scope: Scope): Promise<StatusTotal[]> {
    const rows = await this.db
      .selectFrom('collections')
      .select(['currency', 'status', ...exactSum('amount')])
      .where(inScope(scope))
      .groupBy(['currency', 'status'])
      .execute();
    return rows.map((row) => ({ currency: row.currency, status: row.status, total: exactTotal(row) }));
  }
}

class SqlSettlementStore implements SettlementStore {
  constructor(private readonly db: Db) {}

  async lockBalance(scope: Scope, currency: string): Promise<void> {
    await this.db
      .insertInto('collect_balance_locks')
      .values({ account_id: scope.accountId, mode: scope.mode, currency, version: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await this.db
      .updateTable('collect_balance_locks')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where(inScope(scope))
      .where('currency', '=', currency)
      .execute();
  }

  async insertSettlement(s: SettlementRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('settlements')
      .values({
        account_id: s.accountId,
        mode: s.mode,
        settlement_id: s.settlementId,
        status: s.status,
        currency: s.currency,
        gross_amount: s.grossAmount,
        fee: s.fee,
        rate: s.rate,
        rate_minor_per_usdt: s.rateMinorPerUsdt,
        rate_time: iso(s.rateTime),
        net_usdt_micro: s.netUsdtMicro.toString(),
        wallet_network: s.walletNetwork,
        wallet_address: s.walletAddress,
        plan: s.plan,
        onchain_reference: s.onchainReference,
        failure_reason: s.failureReason,
        due_at: isoOrNull(s.dueAt),
        completed_at: isoOrNull(s.completedAt),
        created_at: iso(s.createdAt),
        updated_at: iso(s.updatedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findSettlement(scope: Scope, settlementId: string): Promise<SettlementRecord | undefined> {
    const row = await this.db.selectFrom('settlements').selectAll().where(inScope(scope)).where('settlement_id', '=', settlementId).executeTakeFirst();
    return row && toSettlement(row);
  }

  async updateSettlementIfStatus(scope: Scope, settlementId: string, expected: readonly SettlementStatus[], patch: SettlementPatch): Promise<SettlementRecord | undefined> {
    const row = await this.db
      .updateTable('settlements')
      .set(settlementPatchColumns(patch))
      .where(inScope(scope))
      .where('settlement_id', '=', settlementId)
      .where('status', 'in', [...expected])
      .returningAll()
      .executeTakeFirst();
    return row && toSettlement(row);
  }

  async listDueSettlements(scope: Scope | null, now: Date, limit: number, after?: DueCursor & { settlementId: string }): Promise<SettlementRecord[]> {
    let query = this.db.selectFrom('settlements').selectAll().where('due_at', '<=', iso(now));
    if (scope !== null) query = query.where(inScope(scope));
    if (after !== undefined) query = query.where(sql<boolean>`(due_at, account_id, mode, settlement_id) > (${isoOrNull(after.dueAt)}, ${after.accountId}, ${after.mode}, ${after.settlementId})`);
    const rows = await query.orderBy('due_at').orderBy('account_id').orderBy('mode').orderBy('settlement_id').limit(limit).execute();
    return rows.map(toSettlement);
  }

  async settlementTotals(scope: Scope): Promise<StatusTotal[]> {
    const rows = await this.db
      .selectFrom('settlements')
      .select(['currency', 'status', ...exactSum('gross_amount')])
      .where(inScope(scope))
      .groupBy(['currency', 'status'])
      .execute();
    return rows.map((row) => ({ currency: row.currency, status: row.status, total: exactTotal(row) }));
  }
}

/** The collect stores on one connection or transaction. */
export function collectSqlStores(db: Db): CollectStores {
  return { collections: new SqlCollectionStore(db), settlements: new SqlSettlementStore(db) };
}
