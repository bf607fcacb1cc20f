import { formatAmount } from '../../protocol/currency';

/** The amount in the currency's own exponent; an unknown currency code still shows digits rather than breaking the form. */
export function displayAmount(value: number, currency: string, locale: string): string {
  try {
    return formatAmount(value, currency, locale);
  } catch {
    return `${value} ${currency}`;
  }
}
