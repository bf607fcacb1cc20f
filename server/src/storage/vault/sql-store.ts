import type { Selectable } from 'kysely';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { VaultTokenRecord } from './records';
import type { VaultTokensTable } from './schema';
import type { VaultStores, VaultTokenStore } from './store';
import { type Db, inScope, insertResult } from '../sql-rows';

/** card_ciphertext of a token that can no longer be used (the column is NOT NULL since migration 0007). */
export const WIPED = '';

function toToken(row: Selectable<VaultTokensTable>): VaultTokenRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    tokenId: row.token_id,
    paymentId: row.payment_id,
    cardCiphertext: row.card_ciphertext,
    cvcCiphertext: row.cvc_ciphertext,
    last4: row.last4,
    cardNetwork: row.card_network,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    usedAt: row.used_at === null ? null : new Date(row.used_at),
  };
}

/** The vault's token table on SQLite and PostgreSQL. */
export class SqlVaultTokenStore implements VaultTokenStore {
  constructor(private readonly db: Db) {}

  async insertToken(token: VaultTokenRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('vault_tokens')
      .values({
        account_id: token.accountId,
        mode: token.mode,
        token_id: token.tokenId,
        payment_id: token.paymentId,
        card_ciphertext: token.cardCiphertext,
        cvc_ciphertext: token.cvcCiphertext,
        last4: token.last4,
        card_network: token.cardNetwork,
        exp_month: token.expMonth,
        exp_year: token.expYear,
        created_at: token.createdAt.toISOString(),
        expires_at: token.expiresAt.toISOString(),
        used_at: token.usedAt === null ? null : token.usedAt.toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findToken(scope: Scope, tokenId: string): Promise<VaultTokenRecord | undefined> {
    const row = await this.db
      .selectFrom('vault_tokens')
      .selectAll()
      .where(inScope(scope))
      .where('token_id', '=', tokenId)
      .executeTakeFirst();
    return row && toToken(row);
  }

  async markTokenUsed(scope: Scope, tokenId: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('vault_tokens')
      .set({ used_at: now.toISOString(), card_ciphertext: WIPED, cvc_ciphertext: null })
      .where(inScope(scope))
      .where('token_id', '=', tokenId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async wipeExpiredTokens(now: Date): Promise<number> {
    const result = await this.db
      .updateTable('vault_tokens')
      .set({ card_ciphertext: WIPED, cvc_ciphertext: null })
      .where('expires_at', '<=', now.toISOString())
      .where('card_ciphertext', '<>', WIPED)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

/** The vault stores on one connection or transaction. */
export function vaultSqlStores(db: Db): VaultStores {
  return { vaultTokens: new SqlVaultTokenStore(db) };
}
