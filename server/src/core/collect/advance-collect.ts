/**
 * How collections and settlements move on: a step is a row of the Collect tables, applied with a conditional update
 * and its event in one transaction. The provider's plan decides what happens when an object's `dueAt` comes (the
 * simulator's payer answering, the credit, an expiry, the network confirming); the steps are applied on every read
 * of the object or the balance, and by the background sweep, whichever comes first. Steps are applied once: a
 * conditional update that finds the object already moved returns it as stored. A step that moves money records what
 * it moved as a balance delta in the same transaction (collect-money.ts, the balance shares of each status): an
 * insert, so steps of one balance never wait on each other or on its settlements. The sweep also folds the deltas
 * into the balance rows (sweepCollect).
 */
import type { Scope } from '../../kernel/store-types';
import type { CollectProvider } from '../../rails/collect-provider';
import type { CollectionPatch, CollectionRecord, SettlementPatch, SettlementRecord } from '../../storage/collect/records';
import type { BalanceKey } from '../../storage/collect/store';
import type { CoreDeps } from '../shared/deps';
import { recordObjectEvent } from '../shared/outbox-event';
import {
  COLLECTION_EVENT_FOR_STATUS,
  decideCollection,
  decideSettlement,
  SETTLEMENT_EVENT_FOR_STATUS,
  type CollectionTrigger,
  type SettlementTrigger,
} from './collect-transitions';
import { balanceDeltaId, collectionBalanceMove, settlementBalanceMove } from './collect-money';
import { toCollectionResponse, toSettlementResponse } from './collect-view';

/** Due collections (or settlements) listed at a time. */
export const DUE_BATCH = 100;
/** Balances with deltas listed at a time by the sweep's fold. */
export const FOLD_BALANCES_BATCH = 100;
/** Deltas the sweep folds into one balance per transaction (the rest wait for its next lap, or a settlement's fold). */
export const FOLD_DELTAS_LIMIT = 1000;

/**
 * Applies one step. The simulator page's payer passes `answeredAt`: the write then applies only if the collection had
 * not expired by then, checked in the conditional update itself, so no answer lands after the expiry whether or not
 * the expiry step was applied yet. (A planned answer is due before the expiry: advanceCollection expires first.)
 */
export async function applyCollectionStep(
  deps: CoreDeps,
  collection: CollectionRecord,
  trigger: CollectionTrigger,
  patch: Omit<CollectionPatch, 'status'>,
  answeredAt?: Date,
): Promise<CollectionRecord> {
  const decision = decideCollection(collection.status, trigger);
  if (!decision.allowed) return collection;
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const changes = Object.assign({}, patch, { status: decision.to, updatedAt: now });
    const moved = await tx.collections.updateCollectionIfStatus(collection, collection.collectionId, [collection.status], changes, answeredAt);
    if (moved === undefined) return (await tx.collections.findCollection(collection, collection.collectionId)) ?? collection;
    const move = collectionBalanceMove(collection.status, moved.status, moved.amount);
    if (move !== undefined) await tx.collectBalances.recordBalanceDelta(moved, balanceDeltaId(moved.collectionId, moved.status), move);
    const eventType = COLLECTION_EVENT_FOR_STATUS[moved.status];
    if (eventType !== undefined) {
      const object = toCollectionResponse(moved);
      await recordObjectEvent(deps, tx, { scope: moved, eventType, objectType: 'collection', objectId: moved.collectionId, contentType: 'collection_details', object }, now);
    }
    return moved;
  });
}

export async function applySettlementStep(
  deps: CoreDeps,
  settlement: SettlementRecord,
  trigger: SettlementTrigger,
  patch: Omit<SettlementPatch, 'status'>,
): Promise<SettlementRecord> {
  const decision = decideSettlement(settlement.status, trigger);
  if (!decision.allowed) return settlement;
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const moved = await tx.settlements.updateSettlementIfStatus(settlement, settlement.settlementId, [settlement.status], Object.assign({}, patch, { status: decision.to, updatedAt: now }));
    if (moved === undefined) return (await tx.settlements.findSettlement(settlement, settlement.settlementId)) ?? settlement;
    const move = settlementBalanceMove(settlement.status, moved.status, moved.grossAmount);
    if (move !== undefined) await tx.collectBalances.recordBalanceDelta(moved, balanceDeltaId(moved.settlementId, moved.status), move);
    const eventType = SETTLEMENT_EVENT_FOR_STATUS[moved.status];
    if (eventType !== undefined) {
      const object = toSettlementResponse(moved);
      await recordObjectEvent(deps, tx, { scope: moved, eventType, objectType: 'settlement', objectId: moved.settlementId, contentType: 'settlement_details', object }, now);
    }
    return moved;
  });
}

/** Applies every step of the collection that is due by now (received, then credited, may both be due). */
export async function advanceCollection(deps: CoreDeps, provider: CollectProvider, collection: CollectionRecord): Promise<CollectionRecord> {
  const now = deps.clock.now();
  let current = collection;
  while (current.dueAt !== null && current.dueAt <= now) {
    const at = current.dueAt;
    let next: CollectionRecord;
    if (current.status === 'received') {
      next = await applyCollectionStep(deps, current, 'credit', { creditedAt: at, dueAt: null });
    } else if (current.status === 'pending' && at >= current.expiresAt) {
      next = await applyCollectionStep(deps, current, 'expire', { failureReason: 'the payer did not pay before the collection expired', dueAt: null });
    } else if (current.status === 'pending' && current.plan === 'approve') {
      next = await applyCollectionStep(deps, current, 'payer_approved', { receivedAt: at, dueAt: new Date(at.getTime() + provider.creditAfterMs) });
    } else if (current.status === 'pending' && current.plan === 'decline') {
      next = await applyCollectionStep(deps, current, 'payer_declined', { failureReason: 'the payer declined the payment', dueAt: null });
    } else {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** Applies the settlement's outcome when it is due (the network confirmed or rejected the transfer). */
export async function advanceSettlement(deps: CoreDeps, provider: CollectProvider, settlement: SettlementRecord): Promise<SettlementRecord> {
  const now = deps.clock.now();
  if (settlement.status !== 'processing' || settlement.dueAt === null || settlement.dueAt > now) return settlement;
  if (settlement.plan === 'fail') {
    return applySettlementStep(deps, settlement, 'network_failed', { failureReason: provider.failureReason(), dueAt: null });
  }
  return applySettlementStep(deps, settlement, 'network_confirmed', {
    onchainReference: provider.onchainReference(settlement.settlementId),
    completedAt: settlement.dueAt,
    dueAt: null,
  });
}

/**
 * Every due step of one account and mode (before a balance is read or debited), or of all (the sweep: scope null),
 * listed a batch at a time until none is left: a balance read after a burst of more than one batch of due
 * collections counts every one of them. Each listing resumes after the last row of the one before, so rows that
 * cannot move (no provider for their mode) never hide the rows behind them.
 */
export async function advanceDueCollect(deps: CoreDeps, provider: (scope: Scope) => CollectProvider | undefined, scope: Scope | null): Promise<number> {
  const now = deps.clock.now();
  const collections = await advanceInBatches<CollectionRecord>(
    (after) => deps.store.collections.listDueCollections(scope, now, DUE_BATCH, after),
    (collection) => advanceWith(provider(collection), (forMode) => advanceCollection(deps, forMode, collection), collection),
  );
  const settlements = await advanceInBatches<SettlementRecord>(
    (after) => deps.store.settlements.listDueSettlements(scope, now, DUE_BATCH, after),
    (settlement) => advanceWith(provider(settlement), (forMode) => advanceSettlement(deps, forMode, settlement), settlement),
  );
  return collections + settlements;
}

/** The record as its mode's provider advanced it, or as it is when its mode has none. */
function advanceWith<T>(provider: CollectProvider | undefined, advance: (provider: CollectProvider) => Promise<T>, record: T): Promise<T> {
  return provider === undefined ? Promise.resolve(record) : advance(provider);
}

/**
 * Lists due records a batch at a time, each listing after the last record of the one before (as listed: a record that
 * moved has left the due ones, one that did not is behind the cursor), and advances each, until a batch is short; how
 * many moved.
 */
async function advanceInBatches<T>(listDue: (after: T | undefined) => Promise<T[]>, advance: (record: T) => Promise<T>): Promise<number> {
  let applied = 0;
  let after: T | undefined;
  for (;;) {
    const due = await listDue(after);
    for (const record of due) if ((await advance(record)) !== record) applied += 1;
    if (due.length < DUE_BATCH) return applied;
    after = due[due.length - 1];
  }
}

/**
 * The background sweep (start.ts): every due step of every account, then the balance deltas folded into their rows,
 * so the delta table stays small (a read sums a balance's deltas) even for accounts that never request a settlement.
 * Each balance is folded in a transaction of its own, at most FOLD_DELTAS_LIMIT deltas at a time; answers how many
 * steps were applied and how many deltas were folded.
 */
export async function sweepCollect(deps: CoreDeps, provider: (scope: Scope) => CollectProvider | undefined): Promise<{ applied: number; folded: number }> {
  // A step that fails does not stop the folds: the deltas would pile up behind a failure that lasts.
  let stepsFailed: unknown;
  const applied = await advanceDueCollect(deps, provider, null).catch((error: unknown) => {
    stepsFailed = error;
    return 0;
  });
  let folded = 0;
  let after: BalanceKey | undefined;
  for (;;) {
    const balances = await deps.store.collectBalances.listBalancesWithDeltas(FOLD_BALANCES_BATCH, after);
    for (const balance of balances) folded += (await deps.store.collectBalances.foldBalance(balance, FOLD_DELTAS_LIMIT)).folded;
    if (balances.length < FOLD_BALANCES_BATCH) {
      if (stepsFailed !== undefined) throw stepsFailed;
      return { applied, folded };
    }
    after = balances[balances.length - 1];
  }
}
