import { DEFAULT_GAPS, detectBrand, getCardBrandSpec, MAX_CARD_NUMBER_LENGTH, type CardBrand } from './card-brands';

const EXPIRY_SEPARATOR = ' / ';

/**
 * Formats a card number as typed: keeps only digits, caps them at the brand's longest length
 * (19 when the brand is unknown) and puts a space at each of the brand's gaps.
 * The brand defaults to the one detected from the input.
 * @example formatCardNumber('378282246310005', 'AmericanExpress') // '3782 822463 10005'
 */
export function formatCardNumber(input: string, brand: CardBrand | undefined = detectBrand(input)): string {
  const spec = brand ? getCardBrandSpec(brand) : undefined;
  const maxLength = spec ? Math.max(...spec.lengths) : MAX_CARD_NUMBER_LENGTH;
  const gaps = spec?.gaps ?? DEFAULT_GAPS;
  const digits = input.replace(/\D/g, '').slice(0, maxLength);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (gaps.includes(i) ? ' ' : '') + digits[i];
  return out;
}

/**
 * Formats an expiry as typed into "MM / YY".
 * - A first digit 2-9 can only be a month, so it becomes "0d / "; "13"-"19" become "01 / 3"….
 * - The separator appears once the month is complete, and "1/" becomes "01 / ".
 * - Backspacing over the separator ("12 /" or "12 ") leaves just the month, so it can be deleted.
 * - A pasted four-digit year ("12/2030") keeps its last two digits.
 * @example formatExpiry('4') // '04 / '
 */
export function formatExpiry(input: string): string {
  const digits = input.replace(/\D/g, '');
  let month: string;
  let rest: string;
  const first = digits[0] ?? '';
  const second = digits[1] ?? '';
  if (first >= '2' || (first === '1' && second >= '3') || (digits === '1' && input.includes('/'))) {
    month = `0${first}`;
    rest = digits.slice(1);
  } else {
    month = digits.slice(0, 2);
    rest = digits.slice(2);
  }
  if (month.length < 2) return month;
  if (rest === '' && / \/?$/.test(input)) return month;
  const year = rest.length === 4 ? rest.slice(2) : rest.slice(0, 2);
  return month + EXPIRY_SEPARATOR + year;
}

/** A field value and the caret position inside it. */
export interface FieldText {
  value: string;
  caret: number;
}

/**
 * Reformats a field and keeps the caret after the same digit it followed before, so editing in the
 * middle of "4242 4242 4242" does not throw the caret to the end. A caret at the end of the input
 * stays at the end of the new value (after any separator or padding the formatter added).
 * @example formatKeepingCaret('42424', 5, formatCardNumber) // { value: '4242 4', caret: 6 }
 */
export function formatKeepingCaret(value: string, caret: number, format: (input: string) => string): FieldText {
  const formatted = format(value);
  const digitsBefore = value.slice(0, caret).replace(/\D/g, '').length;
  const formattedDigits = formatted.replace(/\D/g, '').length;
  if (caret >= value.length || digitsBefore >= formattedDigits) return { value: formatted, caret: formatted.length };
  let seen = 0;
  let position = 0;
  while (seen < digitsBefore) {
    if (/\d/.test(formatted[position] ?? '')) seen++;
    position++;
  }
  return { value: formatted, caret: position };
}
