/**
 * The vault's sealing and opening of card data. It holds the cipher; the core decides when a token may be minted
 * or consumed and the store keeps only what seal() returns.
 */
import type { Scope } from '../kernel/store-types';
import type { VaultTokenRecord } from '../storage/vault/records';
import { CardDetails, type CardDetailsInit } from './card-details';
import type { VaultCipher } from './vault-cipher';

export interface SealInput extends Scope {
  tokenId: string;
  paymentId: string;
  card: CardDetailsInit & { cvc: string };
  createdAt: Date;
  expiresAt: Date;
}

export class CardVault {
  readonly #cipher: VaultCipher;

  constructor(cipher: VaultCipher) {
    this.#cipher = cipher;
  }

  /** Encrypts the card (number + holder name) and the CVC separately, each with its own IV and binding. */
  seal(input: SealInput): VaultTokenRecord {
    const binding = { tokenId: input.tokenId, accountId: input.accountId, mode: input.mode };
    const details = new CardDetails(input.card);
    return {
      accountId: input.accountId,
      mode: input.mode,
      tokenId: input.tokenId,
      paymentId: input.paymentId,
      cardCiphertext: this.#cipher.encrypt(
        JSON.stringify({ number: input.card.number, holder_name: input.card.holderName }),
        { purpose: 'card', ...binding },
      ),
      cvcCiphertext: this.#cipher.encrypt(input.card.cvc, { purpose: 'cvc', ...binding }),
      last4: details.last4,
      cardNetwork: details.network,
      expMonth: input.card.expMonth,
      expYear: input.card.expYear,
      createdAt: input.createdAt,
      expiresAt: input.expiresAt,
      usedAt: null,
    };
  }

  /** Decrypts a token's card; the CVC only while its ciphertext still exists. */
  open(record: VaultTokenRecord): CardDetails {
    const binding = { tokenId: record.tokenId, accountId: record.accountId, mode: record.mode };
    const card = JSON.parse(this.#cipher.decrypt(record.cardCiphertext, { purpose: 'card', ...binding })) as {
      number: string;
      holder_name: string | null;
    };
    const cvc = record.cvcCiphertext === null ? null : this.#cipher.decrypt(record.cvcCiphertext, { purpose: 'cvc', ...binding });
    return new CardDetails({ number: card.number, cvc, expMonth: record.expMonth, expYear: record.expYear, holderName: card.holder_name });
  }

  /**
   * Seals the number and holder name of a card saved for later charges, bound to its payment_method_id (a different
   * purpose than a psp_token's card, so neither ciphertext opens as the other). The CVC is never stored.
   */
  sealStoredCard(scope: Scope, paymentMethodId: string, card: CardDetails): string {
    return this.#cipher.encrypt(JSON.stringify({ number: card.revealNumber(), holder_name: card.holderName }), {
      tokenId: paymentMethodId,
      accountId: scope.accountId,
      mode: scope.mode,
      purpose: 'stored_card',
    });
  }

  /** Opens a stored card with the expiry the stored method holds now (an update may have carried it on). */
  openStoredCard(scope: Scope, paymentMethodId: string, ciphertext: string, expiry: { expMonth: string; expYear: string }): CardDetails {
    const card = JSON.parse(
      this.#cipher.decrypt(ciphertext, { tokenId: paymentMethodId, accountId: scope.accountId, mode: scope.mode, purpose: 'stored_card' }),
    ) as { number: string; holder_name: string | null };
    return new CardDetails({ number: card.number, cvc: null, expMonth: expiry.expMonth, expYear: expiry.expYear, holderName: card.holder_name });
  }

  toJSON(): string {
    return '[card vault]';
  }
}
