import type { InsertResult, Scope } from '../../kernel/store-types';
import type { VaultTokenRecord } from './records';

export interface VaultTokenStore {
  insertToken(token: VaultTokenRecord): Promise<InsertResult>;
  findToken(scope: Scope, tokenId: string): Promise<VaultTokenRecord | undefined>;
  /**
   * Marks the token used and deletes its card and CVC ciphertexts, only if it is unused and unexpired at `now` (a
   * conditional UPDATE): of several concurrent calls exactly one gets true. The caller has read the row before.
   */
  markTokenUsed(scope: Scope, tokenId: string, now: Date): Promise<boolean>;
  /** Deletes the ciphertexts of every token expired at `now` (the rows stay, holding no card data); returns how many. */
  wipeExpiredTokens(now: Date): Promise<number>;
}

/** The vault stores, as storage/stores.ts composes them into Stores. */
export interface VaultStores {
  vaultTokens: VaultTokenStore;
}
