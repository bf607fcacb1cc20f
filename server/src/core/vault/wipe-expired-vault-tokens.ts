import type { CoreDeps } from '../shared/deps';

/**
 * Deletes the card ciphertext of tokens that expired unused (a used token's is deleted at use), so no card data
 * outlives the 15 minutes a token can be used in. Run by main.ts's housekeeping sweep; returns how many were wiped.
 */
export async function wipeExpiredVaultTokens(deps: Pick<CoreDeps, 'store' | 'clock'>): Promise<number> {
  return deps.store.vaultTokens.wipeExpiredTokens(deps.clock.now());
}
