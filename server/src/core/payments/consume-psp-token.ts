import type { CardSummary } from '../../../../protocol/api/vault';
import type { Scope } from '../../kernel/store-types';
import type { Stores } from '../../storage/stores';
import type { CardDetails } from '../../vault/card-details';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

export interface ConsumedToken {
  card: CardDetails;
  summary: CardSummary;
}

const UNUSABLE = 'The psp_token is unknown, already used, expired, or was minted for another payment. Tokenize the card again.';

/** ERR_4010: a psp_token this payment cannot use (it is not one minted for it, unused and unexpired). */
export function unusablePspToken(): ApiError {
  return new ApiError('ERR_4010', UNUSABLE, { fieldName: 'payment_method_data.psp_token' });
}

/**
 * Uses a psp_token for one confirm, inside the caller's transaction: it must belong to this account, mode and
 * payment, be unexpired and unused. The conditional update (used_at IS NULL) makes exactly one of several
 * concurrent confirms win; it also deletes the CVC ciphertext. The card is decrypted from the row read before
 * the update, so the CVC reaches the acquirer once and is gone from storage when the transaction commits.
 */
export async function consumePspToken(
  deps: CoreDeps,
  tx: Stores,
  scope: Scope,
  paymentId: string,
  tokenId: string,
  now: Date,
): Promise<ConsumedToken> {
  if (deps.vault === undefined) throw new ApiError('ERR_4004', 'Card payments are not available on this server.', { fieldName: 'payment_method_data' });
  const record = await tx.vaultTokens.findToken(scope, tokenId);
  if (record === undefined || record.paymentId !== paymentId || record.usedAt !== null || record.expiresAt <= now) {
    throw unusablePspToken();
  }
  if (!(await tx.vaultTokens.markTokenUsed(scope, tokenId, now))) {
    throw unusablePspToken();
  }
  const card = deps.vault.open(record);
  return {
    card,
    summary: { last4: record.last4, card_network: record.cardNetwork, exp_month: record.expMonth, exp_year: record.expYear },
  };
}
