/**
 * Raw card numbers are refused in every mode (spec rule 7, ERR_2029). A request's payment_method_data is refused
 * when it has `card.card_number` (any value), or when any string or number anywhere inside it is, once spaces and
 * dashes are removed, 13 to 19 digits that pass the Luhn check. Fields outside payment_method_data are not
 * scanned (order references are often long digit strings). See docs/open-points.md.
 */
import { passesLuhn } from '../../../../protocol/luhn';

const SEPARATORS = /[\s-]/g;
const CANDIDATE = /^\d{13,19}$/;

/** True when the value looks like a primary account number (13..19 digits, Luhn-valid). */
export function looksLikeCardNumber(value: string | number): boolean {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value.replace(SEPARATORS, '');
  return CANDIDATE.test(text) && passesLuhn(text);
}

/** Runs of 13..19 digits, with spaces or dashes between them, that could be a card number inside a longer text. */
const DIGIT_RUN = /\d(?:[\s-]?\d){12,18}/g;

/** The text with every card-number-shaped run replaced by [redacted], for messages and logs that quote a request. */
export function redactCardNumbers(text: string): string {
  return text.replace(DIGIT_RUN, (run) => (looksLikeCardNumber(run) ? '[redacted]' : run));
}

const MAX_DEPTH = 32;

/** True when `paymentMethodData` (any JSON value) carries a raw card number. */
export function containsRawCardNumber(paymentMethodData: unknown): boolean {
  if (isRecord(paymentMethodData) && isRecord(paymentMethodData['card']) && 'card_number' in paymentMethodData['card']) {
    return true;
  }
  return scan(paymentMethodData, 0);
}

function scan(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (typeof value === 'string' || typeof value === 'number') return looksLikeCardNumber(value);
  if (Array.isArray(value)) return value.some((item) => scan(item, depth + 1));
  if (isRecord(value)) return Object.values(value).some((item) => scan(item, depth + 1));
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
