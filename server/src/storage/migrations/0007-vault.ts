import type { Kysely, Migration } from 'kysely';

/**
 * The card vault: one row per psp_token. Only ciphertext (AES-256-GCM) and display fields (last4, network,
 * expiry) are stored; the CVC ciphertext is set to NULL at first use. Keyed by account and mode like every
 * merchant-data table.
 */
export const migration0007Vault: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('vault_tokens')
      .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.account_id'))
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('token_id', 'text', (col) => col.notNull())
      .addColumn('payment_id', 'text', (col) => col.notNull())
      .addColumn('card_ciphertext', 'text', (col) => col.notNull())
      .addColumn('cvc_ciphertext', 'text')
      .addColumn('last4', 'text', (col) => col.notNull())
      .addColumn('card_network', 'text')
      .addColumn('exp_month', 'text', (col) => col.notNull())
      .addColumn('exp_year', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .addColumn('expires_at', 'text', (col) => col.notNull())
      .addColumn('used_at', 'text')
      .addPrimaryKeyConstraint('vault_tokens_pk', ['account_id', 'mode', 'token_id'])
      .execute();
    await db.schema.createIndex('vault_tokens_payment_idx').on('vault_tokens').columns(['account_id', 'mode', 'payment_id']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('vault_tokens').ifExists().execute();
  },
};
