import { USDT_DECIMALS, type CollectionResponse, type SettlementResponse } from '../../../../protocol/api/collect';
import { currencyExponent, minorToDecimal } from '../../../../protocol/currency';
import type { CollectionRecord, SettlementRecord } from '../../storage/collect/records';

const isoOrNull = (date: Date | null) => (date === null ? null : date.toISOString());

export function toCollectionResponse(c: CollectionRecord): CollectionResponse {
  return {
    collection_id: c.collectionId,
    status: c.status,
    amount: minorToDecimal(c.amount, currencyExponent(c.currency)),
    currency: c.currency,
    country: c.country,
    method: c.method,
    customer_reference: c.customerReference,
    instructions: c.instructions,
    failure_reason: c.failureReason,
    created: c.createdAt.toISOString(),
    received_at: isoOrNull(c.receivedAt),
    credited_at: isoOrNull(c.creditedAt),
    expires_at: c.expiresAt.toISOString(),
  };
}

export function toSettlementResponse(s: SettlementRecord): SettlementResponse {
  const exponent = currencyExponent(s.currency);
  return {
    settlement_id: s.settlementId,
    status: s.status,
    currency: s.currency,
    gross_amount: minorToDecimal(s.grossAmount, exponent),
    fee: minorToDecimal(s.fee, exponent),
    conversion: { from: s.currency, to: 'USDT', rate: s.rate, rate_time: s.rateTime.toISOString() },
    net_usdt: minorToDecimal(s.netUsdtMicro, USDT_DECIMALS),
    destination: { network: s.walletNetwork, address: s.walletAddress },
    onchain_reference: s.onchainReference,
    failure_reason: s.failureReason,
    created: s.createdAt.toISOString(),
    completed_at: isoOrNull(s.completedAt),
  };
}
