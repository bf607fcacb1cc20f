import type { StoredCardInput } from '../../../../protocol/api/payment-methods';
import { ApiError } from '../shared/errors';

/**
 * A raw card number is refused in every mode (spec "not live today" 7, ERR_2029): cards reach a stored method only
 * from a card payment paid with a psp_token, and a saved number never changes (spec: save a new method instead).
 */
export function refuseCardNumber(card: StoredCardInput | undefined): void {
  if (card?.card_number !== undefined) {
    throw new ApiError('ERR_2029', 'A raw card number is not accepted: save a card by paying with it (psp_token) and setup_future_usage; a saved number never changes.', {
      fieldName: 'card.card_number',
    });
  }
}

/** Two-digit month, four-digit year: the form the vault and the simulator keep. */
export function normalizeExpiry(month: string, year: string): { expMonth: string; expYear: string } {
  return { expMonth: month.padStart(2, '0'), expYear: year.length === 2 ? `20${year}` : year };
}
