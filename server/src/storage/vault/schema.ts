import type { Mode } from '../../../../protocol/ids';



/** The card vault (migration 0007): ciphertext and display fields only. */
export interface VaultTokensTable {
  account_id: string;
  mode: Mode;
  token_id: string;
  payment_id: string;
  card_ciphertext: string;
  cvc_ciphertext: string | null;
  last4: string;
  card_network: string | null;
  exp_month: string;
  exp_year: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** The vault tables, as storage/schema.ts composes them into the database. */
export interface VaultSchema {
  vault_tokens: VaultTokensTable;
}
