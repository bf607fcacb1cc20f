import type { Scope } from '../../kernel/store-types';

/**
 * A card in the vault behind one psp_token. Only ciphertext and display fields are stored: the number (and holder
 * name) in cardCiphertext, the CVC in cvcCiphertext (set to null at first use).
 */
export interface VaultTokenRecord extends Scope {
  /** The psp_token: `tok_` + 20 base62. */
  tokenId: string;
  /** The payment whose client_secret minted it; the token confirms this payment only. */
  paymentId: string;
  cardCiphertext: string;
  cvcCiphertext: string | null;
  last4: string;
  cardNetwork: string | null;
  expMonth: string;
  expYear: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}
