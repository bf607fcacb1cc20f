/**
 * The Collect balance as it was derived before it was stored (migration 0033): the sums of every collection and
 * settlement of the account by status. The tests hold the stored balance to it.
 */
import { sql, type Kysely } from 'kysely';
import type { Scope } from '../kernel/store-types';

export interface DerivedBalance {
  currency: string;
  available: bigint;
  pending: bigint;
  held: bigint;
}

/** Per currency with any collection or settlement: available = credited - processing - completed; pending = received; held = processing. */
export async function derivedCollectBalances<DB>(db: Kysely<DB>, scope: Scope): Promise<DerivedBalance[]> {
  const totals = async (table: 'collections' | 'settlements', column: 'amount' | 'gross_amount') =>
    (
      await sql<{ currency: string; status: string; total: string }>`
        select currency, status, cast(sum(${sql.ref(column)}) as text) as total from ${sql.table(table)}
        where account_id = ${scope.accountId} and mode = ${scope.mode} group by currency, status`.execute(db)
    ).rows;
  const collections = await totals('collections', 'amount');
  const settlements = await totals('settlements', 'gross_amount');
  const sum = (rows: typeof collections, currency: string, status: string) =>
    rows.filter((row) => row.currency === currency && row.status === status).reduce((total, row) => total + BigInt(row.total), 0n);
  const currencies = [...new Set([...collections, ...settlements].map((row) => row.currency))].sort();
  return currencies.map((currency) => {
    const held = sum(settlements, currency, 'processing');
    return {
      currency,
      available: sum(collections, currency, 'credited') - held - sum(settlements, currency, 'completed'),
      pending: sum(collections, currency, 'received'),
      held,
    };
  });
}

/** Balances without the currencies at zero in every bucket, by currency: a stored row may be all zeros, a derived one absent. */
export function nonZeroBalances(balances: readonly DerivedBalance[]): DerivedBalance[] {
  return balances
    .filter((balance) => balance.available !== 0n || balance.pending !== 0n || balance.held !== 0n)
    .map(({ currency, available, pending, held }) => ({ currency, available, pending, held }))
    .sort((a, b) => a.currency.localeCompare(b.currency));
}
