/**
 * A mobile money number (MSISDN) as the frame collects it and the API takes it: an optional leading "+" and 8 to 15
 * digits (E.164 allows 15; a local number such as 0712345678 is 10). Free of zod, so the frame can import it.
 */
export const MSISDN_PATTERN = /^\+?\d{8,15}$/;

/** What a customer typed, without the spaces, dashes, dots and brackets people put in phone numbers. */
export function normalizeMsisdn(typed: string): string {
  return typed.replace(/[\s().-]/g, '');
}
