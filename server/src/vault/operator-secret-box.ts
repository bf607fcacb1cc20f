/**
 * Operators' TOTP secrets at rest: sealed with the vault key (AES-256-GCM, bound to the operator and account), so a
 * copy of the database alone does not give anyone the second factor.
 */
import type { VaultCipher } from './vault-cipher';

const SEALED = /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export class OperatorSecretBox {
  constructor(private readonly cipher: VaultCipher) {}

  seal(totpSecret: string, operatorId: string, accountId: string): string {
    return this.cipher.encrypt(totpSecret, this.binding(operatorId, accountId));
  }

  open(sealed: string, operatorId: string, accountId: string): string {
    return this.cipher.decrypt(sealed, this.binding(operatorId, accountId));
  }

  /** False for a base32 secret an older version stored in plain text. */
  isSealed(value: string): boolean {
    return SEALED.test(value);
  }

  private binding(operatorId: string, accountId: string) {
    return { tokenId: operatorId, accountId, mode: 'operator', purpose: 'totp_secret' } as const;
  }
}
