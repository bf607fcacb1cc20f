import { canMatchAnyBrand, detectBrand, getCardBrandSpec, type CardBrand } from './card-brands';
import { passesLuhn } from './luhn';

/**
 * Why a card number is not valid. `incomplete` means more digits could still make it valid, so a
 * field should show it only on blur; the others can no longer become valid.
 */
export type CardNumberError = 'incomplete' | 'invalid_luhn' | 'unknown_brand' | 'invalid_length';

/** Result of `validateCardNumber`. */
export interface CardNumberValidation {
  brand: CardBrand | undefined;
  /** The number has a length its brand allows (12-19 for an accepted unknown brand). */
  complete: boolean;
  valid: boolean;
  error?: CardNumberError;
}

/** Options of `validateCardNumber`. */
export interface CardNumberOptions {
  /**
   * Accept a number no known network claims when it has 12-19 digits and passes Luhn (the
   * reference's advice to leave acceptance to the acquirer). Off by default: such numbers report
   * `unknown_brand` as soon as no network can match their prefix.
   */
  allowUnknownBrand?: boolean;
}

const UNKNOWN_BRAND_LENGTHS = [12, 13, 14, 15, 16, 17, 18, 19];

/**
 * Validates a card number (spaces and other non-digits are ignored) against its detected brand's
 * lengths and, where the brand uses it, Luhn.
 * @example validateCardNumber('4242 4242 4242 4242') // { brand: 'Visa', complete: true, valid: true }
 */
export function validateCardNumber(input: string, options: CardNumberOptions = {}): CardNumberValidation {
  const digits = input.replace(/\D/g, '');
  const brand = detectBrand(digits);
  if (digits === '') return { brand, complete: false, valid: false, error: 'incomplete' };
  if (!brand && !options.allowUnknownBrand) {
    return { brand, complete: false, valid: false, error: canMatchAnyBrand(digits) ? 'incomplete' : 'unknown_brand' };
  }
  const spec = brand ? getCardBrandSpec(brand) : undefined;
  const lengths = spec?.lengths ?? UNKNOWN_BRAND_LENGTHS;
  if (digits.length > Math.max(...lengths)) return { brand, complete: false, valid: false, error: 'invalid_length' };
  if (!lengths.includes(digits.length)) return { brand, complete: false, valid: false, error: 'incomplete' };
  if ((spec?.luhn ?? true) && !passesLuhn(digits)) return { brand, complete: true, valid: false, error: 'invalid_luhn' };
  return { brand, complete: true, valid: true };
}

/** Why an expiry is not valid. */
export type ExpiryError = 'incomplete' | 'invalid_month' | 'in_the_past' | 'too_far';

/** Result of `validateExpiry`: month 1-12 and a four-digit year once they can be read. */
export interface ExpiryValidation {
  month: number | undefined;
  year: number | undefined;
  valid: boolean;
  error?: ExpiryError;
}

/** Expiry years further ahead than this are refused (card-validator and Braintree use 19). */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

/**
 * Validates an expiry typed as "MM / YY", "MM/YYYY", "MMYY" or "YYYY-MM" against `now` (local
 * time). The current month is valid; a year more than 20 years after now's year is `too_far`.
 * Two-digit years take now's century unless that is over 50 years back ("05" in 2095 is 2105).
 * Text that is not a month/year pair reports `invalid_month`.
 * The server checks again with its own clock.
 * @example validateExpiry('12 / 30', new Date(2026, 0, 1)) // { month: 12, year: 2030, valid: true }
 */
export function validateExpiry(text: string, now: Date): ExpiryValidation {
  const parsed = parseExpiry(text.trim());
  if (!parsed) return { month: undefined, year: undefined, valid: false, error: 'invalid_month' };
  const { mm, yy, separated } = parsed;
  if (mm === '' || (mm.length === 1 && !separated)) {
    return { month: undefined, year: undefined, valid: false, error: 'incomplete' };
  }
  const month = Number(mm);
  if (month < 1 || month > 12) return { month: undefined, year: undefined, valid: false, error: 'invalid_month' };
  if (yy.length !== 2 && yy.length !== 4) return { month, year: undefined, valid: false, error: 'incomplete' };
  const nowYear = now.getFullYear();
  let year = Number(yy);
  if (yy.length === 2) {
    year += Math.floor(nowYear / 100) * 100;
    if (year < nowYear - 50) year += 100;
  }
  if (year < nowYear || (year === nowYear && month < now.getMonth() + 1)) {
    return { month, year, valid: false, error: 'in_the_past' };
  }
  if (year > nowYear + MAX_EXPIRY_YEARS_AHEAD) return { month, year, valid: false, error: 'too_far' };
  return { month, year, valid: true };
}

/** Splits expiry text into month and year digits; undefined when it is not a month/year pair. */
function parseExpiry(text: string): { mm: string; yy: string; separated: boolean } | undefined {
  const iso = /^(\d{4})-(\d{1,2})$/.exec(text);
  if (iso) return { mm: iso[2] ?? '', yy: iso[1] ?? '', separated: true };
  const match = /^(\d{0,2})(\D*)(\d*)$/.exec(text);
  if (!match) return undefined;
  const [, mm = '', separator = '', yy = ''] = match;
  return { mm, yy, separated: separator !== '' || yy !== '' };
}

/** Why a security code is not valid. */
export type CvcError = 'incomplete' | 'invalid_length' | 'invalid_characters';

/** Result of `validateCvc`. */
export interface CvcValidation {
  valid: boolean;
  error?: CvcError;
}

/**
 * Validates a security code: the brand's length (4 for American Express, 3 for the others), or 3
 * or 4 digits when the brand is not known yet.
 * @example validateCvc('1234', 'AmericanExpress') // { valid: true }
 */
export function validateCvc(cvc: string, brand: CardBrand | undefined): CvcValidation {
  if (/\D/.test(cvc)) return { valid: false, error: 'invalid_characters' };
  const length = brand ? getCardBrandSpec(brand).cvcLength : undefined;
  if (cvc.length < (length ?? 3)) return { valid: false, error: 'incomplete' };
  if (cvc.length > (length ?? 4)) return { valid: false, error: 'invalid_length' };
  return { valid: true };
}

/** Why a cardholder name is not valid. */
export type HolderNameError = 'empty' | 'too_long' | 'invalid_characters';

/** Result of `validateHolderName`, with the name trimmed and its inner spaces collapsed. */
export interface HolderNameValidation {
  name: string;
  valid: boolean;
  error?: HolderNameError;
}

/** Longest accepted cardholder name; the spec sets no limit, this only stops runaway input. */
export const MAX_HOLDER_NAME_LENGTH = 100;

/**
 * Validates a cardholder name: letters in any script, spaces, apostrophes, hyphens, periods and
 * commas. Digits are refused, which also stops a card number pasted into the name field from
 * travelling as a name.
 * @example validateHolderName('  Zoë  O’Brien ') // { name: 'Zoë O’Brien', valid: true }
 */
export function validateHolderName(input: string): HolderNameValidation {
  const name = input.trim().replace(/\s+/g, ' ');
  if (name === '') return { name, valid: false, error: 'empty' };
  if (name.length > MAX_HOLDER_NAME_LENGTH) return { name, valid: false, error: 'too_long' };
  if (!/^[\p{L}\p{M}' .,\-’]+$/u.test(name)) return { name, valid: false, error: 'invalid_characters' };
  return { name, valid: true };
}
