/**
 * A card as the vault holds it in memory between decryption and the acquirer call. The number and CVC are
 * private fields: JSON.stringify, util.inspect and pino all see "[card redacted]", so an accidental log line or
 * error payload cannot carry them (the idea of hyperswitch's masking::Secret).
 */
import { inspect } from 'node:util';

export interface CardDetailsInit {
  number: string;
  /** Null once the CVC has been used (it is deleted from the vault at first use). */
  cvc: string | null;
  expMonth: string;
  expYear: string;
  holderName: string | null;
}

export class CardDetails {
  readonly #number: string;
  readonly #cvc: string | null;
  readonly expMonth: string;
  readonly expYear: string;
  readonly holderName: string | null;

  constructor(init: CardDetailsInit) {
    this.#number = init.number;
    this.#cvc = init.cvc;
    this.expMonth = init.expMonth;
    this.expYear = init.expYear;
    this.holderName = init.holderName;
  }

  /** The full number: only for the acquirer call. */
  revealNumber(): string {
    return this.#number;
  }

  revealCvc(): string | null {
    return this.#cvc;
  }

  get last4(): string {
    return this.#number.slice(-4);
  }

  get network(): string | null {
    return detectCardNetwork(this.#number);
  }

  toJSON(): string {
    return '[card redacted]';
  }

  toString(): string {
    return '[card redacted]';
  }

  [inspect.custom](): string {
    return '[card redacted]';
  }
}

/**
 * Network ranges (IIN prefixes), checked in order: RuPay's explicit ranges before Discover's 65 and Maestro's
 * 50x/60x (as hyperswitch's getCardBrand does). Names are the spec's card_networks values. Co-badged schemes
 * (Cartes Bancaires, Interac) share Visa/Mastercard ranges and are reported under those.
 */
const NETWORK_RANGES: readonly { network: string; ranges: readonly [string, string][] }[] = [
  {
    network: 'RuPay',
    ranges: [
      ['508227', '508227'],
      ['508500', '508999'],
      ['603741', '603741'],
      ['606985', '607984'],
      ['608001', '608500'],
      ['652150', '653149'],
      ['817290', '817290'],
    ],
  },
  { network: 'AmericanExpress', ranges: [['34', '34'], ['37', '37']] },
  { network: 'DinersClub', ranges: [['300', '305'], ['36', '36'], ['38', '39']] },
  { network: 'JCB', ranges: [['3528', '3589']] },
  { network: 'Visa', ranges: [['4', '4']] },
  { network: 'Mastercard', ranges: [['51', '55'], ['2221', '2720']] },
  { network: 'Discover', ranges: [['6011', '6011'], ['644', '649'], ['65', '65']] },
  { network: 'UnionPay', ranges: [['62', '62'], ['81', '81']] },
  { network: 'Maestro', ranges: [['50', '50'], ['56', '59'], ['63', '63'], ['67', '67'], ['6', '6']] },
];

/** The card network of a number from its prefix, or null when no range matches. */
export function detectCardNetwork(number: string): string | null {
  for (const { network, ranges } of NETWORK_RANGES) {
    for (const [low, high] of ranges) {
      const prefix = number.slice(0, low.length);
      if (prefix.length === low.length && prefix >= low && prefix <= high) return network;
    }
  }
  return null;
}

/** Networks the card simulator takes (listed by GET /account/payment_methods). */
export const SIMULATED_CARD_NETWORKS = ['Visa', 'Mastercard', 'AmericanExpress', 'Discover', 'JCB', 'DinersClub', 'UnionPay', 'RuPay', 'Maestro'] as const;
