/**
 * Collect arithmetic, exact: amounts are integers in minor units, USDT in millionths, and conversion uses BigInt.
 * Rounding (docs/collect.md): the fee rounds up to the minor unit; the USDT amount rounds down to the millionth.
 */
import { COLLECT_CORRIDORS, type CollectCountry, type CollectCurrency, type CollectionStatus, type SettlementStatus } from '../../../../protocol/api/collect';
import type { BalanceBuckets, CollectBalance } from '../../storage/collect/records';

/** Millionths of a USDT for `minor` local units at `rateMinorPerUsdt` local minor units per USDT (rounded down). */
export function toUsdtMicro(minor: number | bigint, rateMinorPerUsdt: number): bigint {
  return (BigInt(minor) * 1_000_000n) / BigInt(rateMinorPerUsdt);
}

export interface CorridorBalance extends BalanceBuckets {
  country: CollectCountry;
  currency: CollectCurrency;
}

/**
 * What one unit of an object's amount adds to each bucket of its currency's balance while the object is in a status
 * (a collection's amount, a settlement's gross amount): available = credited collections - settlements processing
 * or completed; pending = collections received; held = settlements processing. A status change moves the balance by
 * the difference between its two rows (collectionBalanceMove, settlementBalanceMove), recorded as a delta in the
 * transaction of the change, so the stored balance (row plus deltas) is always these shares summed over every
 * collection and settlement of the account.
 */
type BucketShares = Readonly<Record<keyof BalanceBuckets, -1n | 0n | 1n>>;
const NONE: BucketShares = { available: 0n, pending: 0n, held: 0n };
export const COLLECTION_BALANCE_SHARES: Readonly<Record<CollectionStatus, BucketShares>> = {
  pending: NONE,
  received: { available: 0n, pending: 1n, held: 0n },
  credited: { available: 1n, pending: 0n, held: 0n },
  failed: NONE,
  expired: NONE,
};
export const SETTLEMENT_BALANCE_SHARES: Readonly<Record<SettlementStatus, BucketShares>> = {
  processing: { available: -1n, pending: 0n, held: 1n },
  completed: { available: -1n, pending: 0n, held: 0n },
  failed: NONE,
};

/** How a collection of `amount` moving between two statuses (from null: created) moves the balance; undefined: not at all. */
export function collectionBalanceMove(from: CollectionStatus | null, to: CollectionStatus, amount: number): BalanceBuckets | undefined {
  return moveBetween(from === null ? NONE : COLLECTION_BALANCE_SHARES[from], COLLECTION_BALANCE_SHARES[to], amount);
}

/** As collectionBalanceMove, for a settlement of gross amount `amount`. */
export function settlementBalanceMove(from: SettlementStatus | null, to: SettlementStatus, amount: number): BalanceBuckets | undefined {
  return moveBetween(from === null ? NONE : SETTLEMENT_BALANCE_SHARES[from], SETTLEMENT_BALANCE_SHARES[to], amount);
}

function moveBetween(before: BucketShares, after: BucketShares, amount: number): BalanceBuckets | undefined {
  const units = BigInt(amount);
  const move = {
    available: (after.available - before.available) * units,
    pending: (after.pending - before.pending) * units,
    held: (after.held - before.held) * units,
  };
  return move.available === 0n && move.pending === 0n && move.held === 0n ? undefined : move;
}

/** Names the balance delta of an object reaching a status (it reaches each status once): `col_...:credited`. */
export function balanceDeltaId(objectId: string, status: CollectionStatus | SettlementStatus): string {
  return `${objectId}:${status}`;
}

/** The balance of each corridor, from the stored balances (a corridor without a row has moved nothing: zero). */
export function corridorBalances(balances: readonly CollectBalance[]): CorridorBalance[] {
  return (Object.entries(COLLECT_CORRIDORS) as [CollectCountry, CollectCurrency][]).map(([country, currency]) => {
    const stored = balances.find((balance) => balance.currency === currency);
    return { country, currency, available: stored?.available ?? 0n, pending: stored?.pending ?? 0n, held: stored?.held ?? 0n };
  });
}
