import { sql, type Selectable, type SqlBool } from 'kysely';
import type { CollectCurrency, CollectionInstructions, CollectionStatus, SettlementStatus, UsdtNetwork } from '../../../../protocol/api/collect';
import type { InsertResult, Scope } from '../../kernel/store-types';
import { dateOrNull, type Db, inTransaction, insertResult, inScope, isPostgres, iso, isoOrNull } from '../sql-rows';
import type { BalanceBuckets, CollectBalance, CollectionPatch, CollectionPlan, CollectionRecord, SettlementPatch, SettlementPlanKind, SettlementRecord } from './records';
import type { CollectionsTable, SettlementsTable } from './schema';
import type { BalanceKey, CollectBalanceStore, CollectionStore, CollectStores, DueCursor, SettlementStore } from './store';

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
}

class SqlSettlementStore implements SettlementStore {
  constructor(private readonly db: Db) {}

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
}

const BUCKETS = ['available', 'pending', 'held'] as const;

/** The buckets as text: exact past 2^53 (better-sqlite3 reads an integer as a double; pg reads bigint as text). */
const bucketsAsText = BUCKETS.map((bucket) => sql<string>`cast(${sql.ref(bucket)} as text)`.as(bucket));

/** An amount as written: cast from its decimal text (better-sqlite3 binds a JS number as a double). */
const exactInteger = (value: bigint) => sql<string>`cast(${value.toString()} as bigint)`;

function toBalance(row: { currency: CollectCurrency; available: string; pending: string; held: string }): CollectBalance {
  return { currency: row.currency, available: BigInt(row.available), pending: BigInt(row.pending), held: BigInt(row.held) };
}

class SqlCollectBalanceStore implements CollectBalanceStore {
  constructor(private readonly db: Db) {}

  async readBalances(scope: Scope): Promise<CollectBalance[]> {
    // One statement: one snapshot on PostgreSQL (a fold's row update and its deletes are seen together or not at all).
    const parts = this.db
      .selectFrom('collect_balances')
      .select(['currency', ...BUCKETS])
      .where(inScope(scope))
      .unionAll(this.db.selectFrom('collect_balance_deltas').select(['currency', ...BUCKETS]).where(inScope(scope)));
    const rows = await this.db
      .selectFrom(parts.as('parts'))
      .select(['currency', ...BUCKETS.map((bucket) => sql<string>`cast(sum(${sql.ref(bucket)}) as text)`.as(bucket))])
      .groupBy('currency')
      .execute();
    return rows.map(toBalance);
  }

  async recordBalanceDelta(balance: BalanceKey, deltaId: string, move: BalanceBuckets): Promise<void> {
    await this.db
      .insertInto('collect_balance_deltas')
      .values({
        account_id: balance.accountId,
        mode: balance.mode,
        currency: balance.currency,
        delta_id: deltaId,
        available: exactInteger(move.available),
        pending: exactInteger(move.pending),
        held: exactInteger(move.held),
      })
      .execute();
  }

  foldBalance(balance: BalanceKey, limit?: number): Promise<{ balance: CollectBalance; folded: number }> {
    return inTransaction(this.db, async (db) => {
      const ofBalance = sql<SqlBool>`${inScope(balance)} and currency = ${balance.currency}`;
      await db
        .insertInto('collect_balances')
        .values({ account_id: balance.accountId, mode: balance.mode, currency: balance.currency, available: '0', pending: '0', held: '0' })
        .onConflict((oc) => oc.doNothing())
        .execute();
      let locked = db.selectFrom('collect_balances').select(['currency', ...bucketsAsText]).where(ofBalance);
      if (isPostgres(db)) locked = locked.forUpdate();
      const row = toBalance(await locked.executeTakeFirstOrThrow());
      // The deltas it deletes are the ones it adds (RETURNING): one inserted after this statement's snapshot stays.
      let deltas = db.deleteFrom('collect_balance_deltas').where(ofBalance);
      if (limit !== undefined) {
        deltas = deltas.where('delta_id', 'in', db.selectFrom('collect_balance_deltas').select('delta_id').where(ofBalance).orderBy('delta_id').limit(limit));
      }
      const folded = (await deltas.returning(bucketsAsText).execute()).map((delta) => toBalance({ currency: balance.currency, ...delta }));
      if (folded.length === 0) return { balance: row, folded: 0 };
      const sum = (bucket: (typeof BUCKETS)[number]) => folded.reduce((total, delta) => total + delta[bucket], 0n);
      const move = { available: sum('available'), pending: sum('pending'), held: sum('held') };
      await db
        .updateTable('collect_balances')
        .set({
          available: sql<string>`available + ${exactInteger(move.available)}`,
          pending: sql<string>`pending + ${exactInteger(move.pending)}`,
          held: sql<string>`held + ${exactInteger(move.held)}`,
        })
        .where(ofBalance)
        .execute();
      return {
        balance: { currency: balance.currency, available: row.available + move.available, pending: row.pending + move.pending, held: row.held + move.held },
        folded: folded.length,
      };
    });
  }

  async listBalancesWithDeltas(limit: number, after?: BalanceKey): Promise<BalanceKey[]> {
    let query = this.db.selectFrom('collect_balance_deltas').select(['account_id', 'mode', 'currency']).distinct();
    if (after !== undefined) query = query.where(sql<SqlBool>`(account_id, mode, currency) > (${after.accountId}, ${after.mode}, ${after.currency})`);
    const rows = await query.orderBy('account_id').orderBy('mode').orderBy('currency').limit(limit).execute();
    return rows.map((row) => ({ accountId: row.account_id, mode: row.mode, currency: row.currency }));
  }
}

/** The collect stores on one connection or transaction. */
export function collectSqlStores(db: Db): CollectStores {
  return { collections: new SqlCollectionStore(db), settlements: new SqlSettlementStore(db), collectBalances: new SqlCollectBalanceStore(db) };
}
