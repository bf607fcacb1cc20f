import { USDT_DECIMALS, type BalanceResponse } from '../../../../protocol/api/collect';
import { currencyExponent, minorToDecimal } from '../../../../protocol/currency';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { advanceDueCollect } from './advance-collect';
import { corridorBalances, toUsdtMicro } from './collect-money';
import { collectProviderFor } from './collect-provider';

/**
 * GET /collect/balance (secret key): per corridor, what is available (credited, neither held nor settled), pending
 * (received, not credited yet) and held (settlements in progress), and the three consolidated in USDT at the
 * provider's current rates. Read from the stored balance (each currency's folded row plus the deltas its status
 * changes recorded since, in one statement: collect-money.ts, storage/collect/store.ts), once the due steps are applied.
 */
export async function readBalance(deps: CoreDeps, auth: AuthContext): Promise<BalanceResponse> {
  const provider = collectProviderFor(deps, auth);
  await advanceDueCollect(deps, () => provider, auth);
  const now = deps.clock.now().toISOString();
  const corridors = corridorBalances(await deps.store.collectBalances.readBalances(auth));
  const consolidated = { available: 0n, pending: 0n, held: 0n };
  const rates: BalanceResponse['rates'] = [];
  for (const corridor of corridors) {
    const quote = provider.quoteSettlement(corridor.currency, 0);
    rates.push({ currency: corridor.currency, rate: quote.rate, rate_time: now });
    consolidated.available += toUsdtMicro(corridor.available, quote.rateMinorPerUsdt);
    consolidated.pending += toUsdtMicro(corridor.pending, quote.rateMinorPerUsdt);
    consolidated.held += toUsdtMicro(corridor.held, quote.rateMinorPerUsdt);
  }
  return {
    currency: 'USDT',
    available: minorToDecimal(consolidated.available, USDT_DECIMALS),
    pending: minorToDecimal(consolidated.pending, USDT_DECIMALS),
    held: minorToDecimal(consolidated.held, USDT_DECIMALS),
    rates,
    by_corridor: corridors.map((corridor) => {
      const exponent = currencyExponent(corridor.currency);
      return {
        country: corridor.country,
        currency: corridor.currency,
        available: minorToDecimal(corridor.available, exponent),
        pending: minorToDecimal(corridor.pending, exponent),
        held: minorToDecimal(corridor.held, exponent),
      };
    }),
  };
}
