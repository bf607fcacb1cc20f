import type { RequestSettlementRequest } from '../../../../protocol/api/collect';
import { currencyExponent, decimalToMinor } from '../../../../protocol/currency';
import type { UsdtWalletSettings } from '../../kernel/account-settings-types';
import type { SettlementRecord } from '../../storage/collect/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { recordObjectEvent } from '../shared/outbox-event';
import { advanceDueCollect, FOLD_DELTAS_LIMIT } from './advance-collect';
import { balanceDeltaId, settlementBalanceMove, toUsdtMicro } from './collect-money';
import { collectProviderFor } from './collect-provider';
import { decideSettlement, SETTLEMENT_EVENT_FOR_STATUS } from './collect-transitions';
import { toSettlementResponse } from './collect-view';

/**
 * POST /collect/settlements (secret key): sends part of one currency's available balance to the account's saved,
 * verified USDT wallet, never anywhere else. In one transaction the currency's balance row is locked, the deltas
 * recorded so far are folded into it, the available amount checked and the settlement's debit recorded (a delta: it
 * holds its amount while processing), so concurrent requests on several instances cannot overdraw it: only they lower
 * `available`, one at a time, and a delta committed after the fold only raises it. What it costs grows with the
 * deltas since the last fold (the sweep folds them), not with the account's history.
 * The answer shows the gross amount, the fee, the rate and its time, and the net USDT.
 */
export async function requestSettlement(deps: CoreDeps, auth: AuthContext, body: RequestSettlementRequest): Promise<SettlementRecord> {
  const provider = collectProviderFor(deps, auth);
  const gross = decimalToMinor(body.amount, currencyExponent(body.currency))!;
  const quote = provider.quoteSettlement(body.currency, gross);
  const netUsdtMicro = toUsdtMicro(gross - quote.feeMinor, quote.rateMinorPerUsdt);
  if (netUsdtMicro <= 0n) throw new ApiError('ERR_2003', 'amount does not cover the settlement fee.', { fieldName: 'amount' });
  const plan = provider.planSettlement(gross);
  await advanceDueCollect(deps, () => provider, auth);

  const now = deps.clock.now();
  const settlementId = deps.ids.id('settlement');
  return deps.store.transaction(async (tx) => {
    // Folded a bounded batch at a time: what one statement hands back stays small however many deltas wait.
    const key = { accountId: auth.accountId, mode: auth.mode, currency: body.currency };
    let fold = await tx.collectBalances.foldBalance(key, FOLD_DELTAS_LIMIT);
    while (fold.folded === FOLD_DELTAS_LIMIT) fold = await tx.collectBalances.foldBalance(key, FOLD_DELTAS_LIMIT);
    const { balance } = fold;
    // The same Idempotency-Key request after a crash: its derived id names the settlement the first run made.
    const existing = await tx.settlements.findSettlement(auth, settlementId);
    if (existing !== undefined) return existing;
    // The wallet as stored now, not as the key's look-up read it when the request came in: an operator may have
    // replaced it since, and a settlement never goes to the wallet it replaced. (After the look-up above: a re-run
    // answers the settlement its first run made, wherever the wallet is now.)
    const stored = await tx.accounts.findAccountById(auth.accountId);
    const wallet = requireSavedWallet(stored?.settings.usdtWallet, body.wallet);
    const decision = decideSettlement(null, 'request', { available: balance.available, requested: BigInt(gross) });
    if (!decision.allowed) {
      throw new ApiError('ERR_4073', `amount exceeds the available ${body.currency} balance.`, { fieldName: 'amount' });
    }
    const settlement: SettlementRecord = {
      accountId: auth.accountId,
      mode: auth.mode,
      settlementId,
      status: decision.to,
      currency: body.currency,
      grossAmount: gross,
      fee: quote.feeMinor,
      rate: quote.rate,
      rateMinorPerUsdt: quote.rateMinorPerUsdt,
      rateTime: now,
      netUsdtMicro,
      walletNetwork: wallet.network,
      walletAddress: wallet.address,
      plan: plan.kind,
      onchainReference: null,
      failureReason: null,
      dueAt: plan.kind === 'stay' ? null : new Date(now.getTime() + plan.afterMs),
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    // A settlement of the same id committed meanwhile (no path reaches this today): its debit is recorded already.
    if ((await tx.settlements.insertSettlement(settlement)) === 'duplicate') return (await tx.settlements.findSettlement(auth, settlementId))!;
    const move = settlementBalanceMove(null, settlement.status, settlement.grossAmount);
    if (move !== undefined) await tx.collectBalances.recordBalanceDelta(settlement, balanceDeltaId(settlement.settlementId, settlement.status), move);
    const eventType = SETTLEMENT_EVENT_FOR_STATUS[settlement.status]!;
    const object = toSettlementResponse(settlement);
    await recordObjectEvent(deps, tx, { scope: settlement, eventType, objectType: 'settlement', objectId: settlement.settlementId, contentType: 'settlement_details', object }, now);
    return settlement;
  });
}

/** The saved wallet, when the request names it (ERR_4074 otherwise; ERR_4075 when the account has none). */
function requireSavedWallet(wallet: UsdtWalletSettings | undefined, requested: string): UsdtWalletSettings {
  if (wallet === undefined) throw new ApiError('ERR_4075', 'This account has no saved, verified USDT wallet; an operator saves one first.');
  if (requested !== wallet.address) {
    throw new ApiError('ERR_4074', 'Settlements go only to the saved, verified USDT wallet; wallet must be its address.', { fieldName: 'wallet' });
  }
  return wallet;
}
