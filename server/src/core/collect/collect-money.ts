/**
 * Collect arithmetic, exact: amounts are integers in minor units, USDT in millionths, and conversion uses BigInt.
 * Rounding (docs/collect.md): the fee rounds up to the minor unit; the USDT amount rounds down to the millionth.
 */
import { COLLECT_CORRIDORS, type CollectCountry, type CollectCurrency } from '../../../../protocol/api/collect';
import type { StatusTotal } from '../../storage/collect/records';

/** Millionths of a USDT for `minor` local units at `rateMinorPerUsdt` local minor units per USDT (rounded down). */
export function toUsdtMicro(minor: number | bigint, rateMinorPerUsdt: number): bigint {
  return (BigInt(minor) * 1_000_000n) / BigInt(rateMinorPerUsdt);
}

export interface CorridorBalance {
  country: CollectCountry;
  currency: CollectCurrency;
  /** Minor units: credited and not settled or held. BigInt: sums of amounts can pass 2^53. */
  available: bigint;
  /** Minor units: received from payers, not credited yet. */
  pending: bigint;
  /** Minor units: reserved by settlements in progress. */
  held: bigint;
}

/** The balance of each corridor, derived from the sums of collections and settlements by status. */
export function corridorBalances(collections: readonly StatusTotal[], settlements: readonly StatusTotal[]): CorridorBalance[] {
  const sum = (totals: readonly StatusTotal[], currency: string, status: string) =>
    totals.filter((t) => t.currency === currency && t.status === status).reduce((total, t) => total + t.total, 0n);
  return (Object.entries(COLLECT_CORRIDORS) as [CollectCountry, CollectCurrency][]).map(([country, currency]) => {
    const held = sum(settlements, currency, 'processing');
    return {
      country,
      currency,
      available: sum(collections, currency, 'credited') - held - sum(settlements, currency, 'completed'),
      pending: sum(collections, currency, 'received'),
      held,
    };
  });
}
