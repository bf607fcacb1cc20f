/**
 * Deterministic crypto simulator (test mode; EUR, USD, GBP). Confirm answers requires_customer_action with a
 * crypto_payment_information next_action: a deposit address, the coin amount at fixed simulated rates, and a
 * hosted page on the API listener with "Pay" (succeeded) and "Expire" (failed, "crypto_payment_expired")
 * buttons. Unpaid payments fail on the first read after CRYPTO_VALIDITY_MS. Inputs (docs/simulator.md):
 * pay_currency USDC (default), USDT, BTC or ETH with a network the coin exists on; any other pay_currency fails at
 * confirm ("crypto_currency_not_supported"), an unknown network likewise ("crypto_network_not_supported").
 */
import { createHash } from 'node:crypto';
import type { Currency } from '../../../../protocol/currency';
import { currencyExponent } from '../../../../protocol/currency';
import type { AuthorizeRequest, RailAdapter, RailOutcome, SyncRequest } from '../rail-adapter';
import { declined, simulatorPageUrl, type SimulatorOptions } from './card-simulator';

/** How long the deposit address waits for the payment. */
export const CRYPTO_VALIDITY_MS = 15 * 60_000;

const CURRENCIES: readonly Currency[] = ['EUR', 'USD', 'GBP'];

/** Simulated rates: USD value of one fiat unit, in millionths. */
const FIAT_USD_MICROS: Record<string, bigint> = { USD: 1_000_000n, EUR: 1_080_000n, GBP: 1_270_000n };

interface Coin {
  /** USD price of one coin, in millionths. */
  usdMicros: bigint;
  decimals: number;
  networks: readonly string[];
}

export const SIMULATED_COINS: Record<string, Coin> = {
  USDC: { usdMicros: 1_000_000n, decimals: 6, networks: ['ethereum', 'polygon', 'solana'] },
  USDT: { usdMicros: 1_000_000n, decimals: 6, networks: ['tron', 'ethereum'] },
  BTC: { usdMicros: 60_000_000_000n, decimals: 8, networks: ['bitcoin'] },
  ETH: { usdMicros: 3_000_000_000n, decimals: 8, networks: ['ethereum'] },
};

/** The coin amount for a fiat amount, rounded up to the coin's displayed decimals. */
export function cryptoPayAmount(amountMinor: number, currency: string, coin: Coin): string {
  const fiatScale = 10n ** BigInt(currencyExponent(currency));
  const coinScale = 10n ** BigInt(coin.decimals);
  const numerator = BigInt(amountMinor) * (FIAT_USD_MICROS[currency] ?? 1_000_000n) * coinScale;
  const denominator = fiatScale * coin.usdMicros;
  const units = (numerator + denominator - 1n) / denominator;
  const whole = units / coinScale;
  const fraction = (units % coinScale).toString().padStart(coin.decimals, '0');
  return `${whole}.${fraction}`;
}

/** A deterministic, well-formed-looking deposit address (never a long digit run, so it cannot look like a PAN). */
function depositAddress(paymentId: string, network: string): string {
  const hex = createHash('sha256').update(`${network}:${paymentId}`).digest('hex').replace(/\d{5}/g, (run) => `${run.slice(0, 4)}a`);
  if (network === 'bitcoin') return `tb1q${hex.slice(0, 38)}`;
  if (network === 'tron') return `T${hex.slice(0, 33)}`;
  if (network === 'solana') return `So1${hex.slice(0, 41)}`;
  return `0x${hex.slice(0, 40)}`;
}

export class CryptoSimulator implements RailAdapter {
  readonly rail = 'crypto' as const;
  readonly connector = 'crypto_simulator';

  constructor(private readonly options: SimulatorOptions) {}

  paymentMethodTypes(currency: Currency) {
    return CURRENCIES.includes(currency) ? ([{ paymentMethod: 'crypto', paymentMethodType: 'crypto_currency' }] as const) : [];
  }

  async authorize(request: AuthorizeRequest): Promise<RailOutcome> {
    const reference = `sim_${this.options.ids.secret(20)}`;
    const payCurrency = (request.paymentMethodData.crypto?.pay_currency ?? 'USDC').toUpperCase();
    const coin = SIMULATED_COINS[payCurrency];
    if (coin === undefined) return declined(reference, 'crypto_currency_not_supported', 'crypto_currency_not_supported');
    const network = request.paymentMethodData.crypto?.network?.toLowerCase() ?? coin.networks[0] ?? 'ethereum';
    if (!coin.networks.includes(network)) return declined(reference, 'crypto_network_not_supported', 'crypto_network_not_supported');
    const challenge = this.options.ids.secret(24);
    return {
      kind: 'customer_action',
      reference,
      nextAction: {
        type: 'crypto_payment_information',
        wallet_address: depositAddress(request.paymentId, network),
        network,
        pay_currency: payCurrency,
        pay_amount: cryptoPayAmount(request.amount, request.currency, coin),
        hosted_page_url: simulatorPageUrl(this.options.publicBaseUrl, 'crypto', request, challenge),
      },
      state: { challenge, expires_at: new Date(request.now.getTime() + CRYPTO_VALIDITY_MS).toISOString() },
    };
  }

  async sync(request: SyncRequest): Promise<RailOutcome> {
    const expiresAt = request.railState?.['expires_at'];
    const expired = typeof expiresAt === 'string' && request.now.getTime() >= Date.parse(expiresAt);
    if (request.customerDecision === 'fail' || expired) {
      return declined(request.railReference, 'crypto_payment_expired', 'crypto_payment_expired');
    }
    if (request.customerDecision === 'complete') return { kind: 'authorized', reference: request.railReference, amountReceived: request.amount };
    return { kind: 'pending', reference: request.railReference };
  }
}
