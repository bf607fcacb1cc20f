/** ISO 4217 currencies the interface spec lists, in its order. */
export const CURRENCIES = [
  'AED','AFN','ALL','AMD','ANG','AOA','ARS','AUD','AWG','AZN','BAM','BBD','BDT','BGN','BHD','BIF','BMD','BND','BOB','BRL','BSD','BTN','BWP','BYN','BZD','CAD','CDF','CHF','CLF','CLP','CNY','COP','CRC','CUC','CUP','CVE','CZK','DJF','DKK','DOP','DZD','EGP','ERN','ETB','EUR','FJD','FKP','GBP','GEL','GHS','GIP','GMD','GNF','GTQ','GYD','HKD','HNL','HRK','HTG','HUF','IDR','ILS','INR','IQD','IRR','ISK','JMD','JOD','JPY','KES','KGS','KHR','KMF','KPW','KRW','KWD','KYD','KZT','LAK','LBP','LKR','LRD','LSL','LYD','MAD','MDL','MGA','MKD','MMK','MNT','MOP','MRU','MUR','MVR','MWK','MXN','MYR','MZN','NAD','NGN','NIO','NOK','NPR','NZD','OMR','PAB','PEN','PGK','PHP','PKR','PLN','PYG','QAR','RON','RSD','RUB','RWF','SAR','SBD','SCR','SDG','SEK','SGD','SHP','SLE','SLL','SOS','SRD','SSP','STD','STN','SVC','SYP','SZL','THB','TJS','TMT','TND','TOP','TRY','TTD','TWD','TZS','UAH','UGX','USD','UYU','UZS','VES','VND','VUV','WST','XAF','XCD','XOF','XPF','YER','ZAR','ZMW','ZWL',
] as const;
export type Currency = (typeof CURRENCIES)[number];

const ZERO_DECIMAL = new Set<string>(['BIF','CLP','DJF','GNF','ISK','JPY','KMF','KRW','PYG','RWF','UGX','VND','VUV','XAF','XOF','XPF']);
const THREE_DECIMAL = new Set<string>(['BHD','IQD','JOD','KWD','LYD','OMR','TND']);

/** Minor-unit exponent per ISO 4217 (JPY 0, INR 2, KWD 3, CLF 4). */
export function currencyExponent(currency: string): number {
  if (currency === 'CLF') return 4;
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/**
 * Formats an integer minor-unit amount for display, e.g. `formatAmount(10050, 'INR', 'en')` -> "₹100.50".
 * @example formatAmount(500, 'JPY', 'en') // "¥500"
 */
export function formatAmount(amount: number, currency: string, locale = 'en'): string {
  const exponent = currencyExponent(currency);
  const major = amount / 10 ** exponent;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  }).format(major);
}

/** A decimal amount as the Collect API carries it: digits, optionally a point and a fraction ("1500", "12.50"). */
export const DECIMAL_AMOUNT_PATTERN = /^(0|[1-9]\d{0,14})(\.\d{1,6})?$/;

/**
 * A decimal string in a currency's minor units, exactly (no floating point): "12.5" in KES (exponent 2) is 1250.
 * Undefined when the text is not a decimal amount or has more fraction digits than the currency's exponent.
 */
export function decimalToMinor(text: string, exponent: number): number | undefined {
  const match = DECIMAL_AMOUNT_PATTERN.exec(text);
  if (match === null) return undefined;
  const fraction = match[2]?.slice(1) ?? '';
  if (fraction.length > exponent) return undefined;
  const minor = Number(`${match[1]}${fraction.padEnd(exponent, '0')}`);
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** Minor units as a decimal string with exactly `exponent` fraction digits: 1250 with exponent 2 is "12.50". */
export function minorToDecimal(minor: number | bigint, exponent: number): string {
  const value = BigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}
