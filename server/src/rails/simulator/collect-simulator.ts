/**
 * The deterministic Collect simulator (test mode; docs/simulator.md, "Collect API"):
 * - mobile money: a number ending in 0001 approves the prompt 5 s later, 0002 declines it; any other number waits
 *   for the simulator page (`/simulator/collect/{collection_id}`), which plays the payer;
 * - bank transfer: the customer_reference `SIM_PAY` arrives 5 s later, `SIM_FAIL` fails; any other waits for the
 *   page; the payer quotes a reference that is the collection id itself, written for a bank (transfer-reference.ts);
 * - a received collection is credited 10 s later; an unanswered one expires after 30 minutes;
 * - settlements: a gross amount whose minor units end in 99 fails, in 98 stays processing, anything else completes
 *   30 s later with an on-chain reference; fixed test rates and a 1 % fee.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { CollectCurrency } from '../../../../protocol/api/collect';
import { currencyExponent, decimalToMinor } from '../../../../protocol/currency';
import type { CollectProvider, OpenedCollection, SettlementPlan, SettlementQuote } from '../collect-provider';
import { transferReferenceOf } from './transfer-reference';

/** Local currency per 1 USDT in test mode. */
export const TEST_USDT_RATES: Record<CollectCurrency, string> = { KES: '129.50', GHS: '15.40', TZS: '2650.00', UGX: '3700' };
/** The settlement fee: 1 % of the gross amount, rounded up to the minor unit. */
export const SETTLEMENT_FEE_BPS = 100;
export const PAYER_ANSWERS_AFTER_MS = 5_000;
export const CREDIT_AFTER_MS = 10_000;
export const COLLECTION_VALIDITY_MS = 30 * 60_000;
export const SETTLEMENT_COMPLETES_AFTER_MS = 30_000;

/** AES-256-GCM: its nonce and tag lengths. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `pageKey` (32 bytes, the same on every instance: compose.ts derives it from the vault key) seals the account id into
 * the challenge of a collection's payer page: the page must find the collection's account from its link alone, and
 * the payer who holds the link must not read the merchant's account id in it.
 */
export function createCollectSimulator(options: { publicBaseUrl: string; pageKey: Buffer }): CollectProvider {
  const sealAccount = (accountId: string): string => {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', options.pageKey, nonce);
    const sealed = Buffer.concat([cipher.update(accountId, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
  };
  const openAccount = (sealed: string): string | undefined => {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= NONCE_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', options.pageKey, bytes.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  };
  const pageUrl = (collectionId: string, challenge: string) =>
    `${options.publicBaseUrl}/simulator/collect/${encodeURIComponent(collectionId)}?challenge=${challenge}`;
  return {
    creditAfterMs: CREDIT_AFTER_MS,
    collectionValidityMs: COLLECTION_VALIDITY_MS,
    openCollection(input): OpenedCollection {
      const challenge = `${sealAccount(input.accountId)}.${randomBytes(16).toString('hex')}`;
      const simulatorUrl = pageUrl(input.collectionId, challenge);
      if (input.method === 'mobile_money') {
        const phone = input.phoneNumber ?? '';
        const plan = phone.endsWith('0001') ? 'approve' : phone.endsWith('0002') ? 'decline' : undefined;
        return {
          instructions: {
            type: 'mobile_money_prompt',
            phone_number: phone,
            message: `A payment prompt was sent to ${phone}; the payer approves it on the phone.`,
            simulator_url: simulatorUrl,
          },
          plan: plan === undefined ? { kind: 'await' } : { kind: plan, afterMs: PAYER_ANSWERS_AFTER_MS },
          challenge,
        };
      }
      const reference = transferReferenceOf(input.collectionId);
      const plan = input.customerReference === 'SIM_PAY' ? 'approve' : input.customerReference === 'SIM_FAIL' ? 'decline' : undefined;
      return {
        instructions: {
          type: 'bank_transfer',
          bank_name: 'Rail Test Bank',
          account_name: 'Rail Collections (test)',
          account_number: `99${createHash('sha256').update(input.accountId).digest('hex').replace(/\D/g, '').slice(0, 8).padEnd(8, '0')}`,
          reference,
          simulator_url: simulatorUrl,
        },
        plan: plan === undefined ? { kind: 'await' } : { kind: plan, afterMs: PAYER_ANSWERS_AFTER_MS },
        challenge,
      };
    },
    quoteSettlement(currency, grossMinor): SettlementQuote {
      const rate = TEST_USDT_RATES[currency];
      const rateMinorPerUsdt = decimalToMinor(rate, currencyExponent(currency))!;
      // In integers: grossMinor * SETTLEMENT_FEE_BPS leaves the doubles' exact range for amounts a collection can hold.
      const feeMinor = Number((BigInt(grossMinor) * BigInt(SETTLEMENT_FEE_BPS) + 9_999n) / 10_000n);
      return { rate, rateMinorPerUsdt, feeMinor };
    },
    planSettlement(grossMinor): SettlementPlan {
      const tail = grossMinor % 100;
      if (tail === 99) return { kind: 'fail', afterMs: SETTLEMENT_COMPLETES_AFTER_MS };
      if (tail === 98) return { kind: 'stay' };
      return { kind: 'complete', afterMs: SETTLEMENT_COMPLETES_AFTER_MS };
    },
    onchainReference: (settlementId) => `0x${createHash('sha256').update(settlementId).digest('hex')}`,
    failureReason: () => 'the simulated network rejected the transfer',
    accountOfChallenge(challenge) {
      const dot = challenge.indexOf('.');
      return dot <= 0 ? undefined : openAccount(challenge.slice(0, dot));
    },
  };
}
