/**
 * REST shapes of the Collect API (spec "Collect API"): local-currency collections, the balance, and settlements to
 * the account's saved USDT wallet. Amounts are decimal strings, exact in the currency's minor-unit precision; the
 * field names the spec does not show are rows in docs/open-points.md.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { currencyExponent, decimalToMinor, DECIMAL_AMOUNT_PATTERN, minorToDecimal } from '../currency';
import { MSISDN_PATTERN, normalizeMsisdn } from '../msisdn';

/** The corridors the Collect API serves, each with its local currency (the spec's bank transfer / mobile money rail). */
export const COLLECT_CORRIDORS = { KE: 'KES', GH: 'GHS', TZ: 'TZS', UG: 'UGX' } as const;
export type CollectCountry = keyof typeof COLLECT_CORRIDORS;
export type CollectCurrency = (typeof COLLECT_CORRIDORS)[CollectCountry];
export const CollectCountry = lazySchema(() => z.enum(['KE', 'GH', 'TZ', 'UG']));
export const CollectCurrency = lazySchema(() => z.enum(['KES', 'GHS', 'TZS', 'UGX']));

export const CollectMethod = lazySchema(() => z.enum(['mobile_money', 'bank_transfer']));
export type CollectMethod = z.infer<typeof CollectMethod>;

export const COLLECTION_STATUSES = ['pending', 'received', 'credited', 'failed', 'expired'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
export const SETTLEMENT_STATUSES = ['processing', 'completed', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** USDT amounts are strings with 6 decimals (the token's on-chain precision). */
export const USDT_DECIMALS = 6;

export const CollectIdParam = lazySchema(() => z.string().min(1).max(64));

const Amount = lazySchema(() => z.string().regex(DECIMAL_AMOUNT_PATTERN, 'must be a decimal string such as "1500" or "12.50"'));

/** The amount, exact in the currency's precision, above zero and an exact integer of minor units (checked once, here). */
function checkAmount(value: { amount: string; currency: string }, ctx: z.RefinementCtx): void {
  const exponent = currencyExponent(value.currency);
  const decimals = value.amount.split('.')[1]?.length ?? 0;
  const minor = decimalToMinor(value.amount, exponent);
  if (decimals > exponent) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: `amount has more decimals than ${value.currency} allows (${exponent})` });
  } else if (minor === undefined) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: `amount is too large: at most ${minorToDecimal(Number.MAX_SAFE_INTEGER, exponent)} ${value.currency}` });
  } else if (minor <= 0) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: 'amount must be greater than zero' });
  }
}

export const CreateCollectionRequest = lazySchema(() =>
  z
    .strictObject({
      amount: Amount.unwrap(),
      currency: CollectCurrency.unwrap(),
      country: CollectCountry.unwrap(),
      method: CollectMethod.unwrap(),
      customer_reference: z.string().min(1).max(255),
      /** Mobile money: the payer's number, where the approval prompt goes. */
      phone_number: z.string().max(32).optional(),
    })
    .superRefine((value, ctx) => {
      // The corridor first: the amount's precision depends on the currency.
      if (COLLECT_CORRIDORS[value.country] !== value.currency) {
        ctx.addIssue({ code: 'custom', path: ['currency'], message: `the ${value.country} corridor collects ${COLLECT_CORRIDORS[value.country]}` });
        return;
      }
      checkAmount(value, ctx);
      if (value.method === 'mobile_money') {
        if (value.phone_number === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['phone_number'], message: 'phone_number is required for mobile_money' });
        else if (!MSISDN_PATTERN.test(normalizeMsisdn(value.phone_number))) ctx.addIssue({ code: 'custom', path: ['phone_number'], message: 'phone_number must be 8 to 15 digits, optionally after a +' });
      } else if (value.phone_number !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['phone_number'], message: 'phone_number is for mobile_money only' });
      }
    })
    .meta({ id: 'CreateCollectionRequest' }));
export type CreateCollectionRequest = z.infer<typeof CreateCollectionRequest>;

export const CollectionInstructions = lazySchema(() =>
  z.union([
    z.object({ type: z.literal('mobile_money_prompt'), phone_number: z.string(), message: z.string(), simulator_url: z.string().nullable() }),
    z.object({
      type: z.literal('bank_transfer'),
      bank_name: z.string(),
      account_name: z.string(),
      account_number: z.string(),
      reference: z.string(),
      simulator_url: z.string().nullable(),
    }),
  ]));
export type CollectionInstructions = z.infer<typeof CollectionInstructions>;

export const CollectionResponse = lazySchema(() =>
  z
    .object({
      collection_id: z.string(),
      status: z.enum(COLLECTION_STATUSES),
      amount: z.string(),
      currency: CollectCurrency.unwrap(),
      country: CollectCountry.unwrap(),
      method: CollectMethod.unwrap(),
      customer_reference: z.string(),
      instructions: CollectionInstructions.unwrap(),
      failure_reason: z.string().nullable(),
      created: z.string(),
      received_at: z.string().nullable(),
      credited_at: z.string().nullable(),
      expires_at: z.string(),
    })
    .meta({ id: 'Collection' }));
export type CollectionResponse = z.infer<typeof CollectionResponse>;

export const BalanceResponse = lazySchema(() => {
  const amounts = { available: z.string(), pending: z.string(), held: z.string() };
  return z
    .object({
      /** The consolidated balance, in the settlement currency at the rates below. */
      currency: z.literal('USDT'),
      ...amounts,
      rates: z.array(z.object({ currency: CollectCurrency.unwrap(), rate: z.string(), rate_time: z.string() })),
      by_corridor: z.array(z.object({ country: CollectCountry.unwrap(), currency: CollectCurrency.unwrap(), ...amounts })),
    })
    .meta({ id: 'CollectBalance' });
});
export type BalanceResponse = z.infer<typeof BalanceResponse>;

export const RequestSettlementRequest = lazySchema(() =>
  z
    .strictObject({
      amount: Amount.unwrap(),
      /** The local-currency balance the settlement draws on. */
      currency: CollectCurrency.unwrap(),
      /** The saved wallet's address: it selects the saved wallet; any other value is refused. */
      wallet: z.string().min(1).max(128),
    })
    .superRefine(checkAmount)
    .meta({ id: 'RequestSettlementRequest' }));
export type RequestSettlementRequest = z.infer<typeof RequestSettlementRequest>;

export const SettlementResponse = lazySchema(() =>
  z
    .object({
      settlement_id: z.string(),
      status: z.enum(SETTLEMENT_STATUSES),
      currency: CollectCurrency.unwrap(),
      gross_amount: z.string(),
      fee: z.string(),
      conversion: z.object({ from: CollectCurrency.unwrap(), to: z.literal('USDT'), rate: z.string(), rate_time: z.string() }),
      net_usdt: z.string(),
      destination: z.object({ network: z.string(), address: z.string() }),
      onchain_reference: z.string().nullable(),
      failure_reason: z.string().nullable(),
      created: z.string(),
      completed_at: z.string().nullable(),
    })
    .meta({ id: 'Settlement' }));
export type SettlementResponse = z.infer<typeof SettlementResponse>;

/** Networks a saved USDT wallet can be on, with the shape of an address there. */
export const USDT_NETWORKS = {
  tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
  ethereum: /^0x[0-9a-fA-F]{40}$/,
  polygon: /^0x[0-9a-fA-F]{40}$/,
} as const;
export type UsdtNetwork = keyof typeof USDT_NETWORKS;

/** PUT /v1/collect/wallet (operator session with fresh two-factor): the one wallet settlements may go to. */
export const SaveSettlementWalletRequest = lazySchema(() =>
  z
    .strictObject({ network: z.enum(['tron', 'ethereum', 'polygon']), address: z.string().trim().min(1).max(100) })
    .refine((wallet) => USDT_NETWORKS[wallet.network].test(wallet.address), { message: 'address is not a wallet address of that network', path: ['address'] })
    .meta({ id: 'SaveSettlementWalletRequest' }));
export type SaveSettlementWalletRequest = z.infer<typeof SaveSettlementWalletRequest>;

export const SettlementWallet = lazySchema(() =>
  z.object({ network: z.enum(['tron', 'ethereum', 'polygon']), address: z.string() }).meta({ id: 'SettlementWallet' }));
