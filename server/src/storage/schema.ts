/**
 * Row shapes of the SQL tables, shared by SQLite and PostgreSQL. Dialect-neutral column types only:
 * timestamps are ISO 8601 UTC text with milliseconds (fixed width, so they sort and compare as text), JSON is
 * text, booleans are integers 0/1, money is bigint minor units (parsed back to number; see database.ts).
 * Every merchant-data table leads with account_id (and mode) so a distributed PostgreSQL could shard on it.
 */
export interface AccountsTable {
  account_id: string;
  slug: string;
  name: string;
  settings: string;
  created_at: string;
}

export interface ProfilesTable {
  profile_id: string;
  account_id: string;
  name: string;
  is_default: number;
  created_at: string;
}

export interface ApiKeysTable {
  key_id: string;
  account_id: string;
  mode: string;
  key_type: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
}

export interface OperatorsTable {
  operator_id: string;
  account_id: string;
  email: string;
  password_hash: string;
  totp_secret: string;
  scopes: string;
  created_at: string;
}

export interface PaymentsTable {
  account_id: string;
  mode: string;
  payment_id: string;
  profile_id: string;
  status: string;
  amount: number;
  currency: string;
  amount_capturable: number;
  amount_received: number | null;
  amount_to_capture: number | null;
  shipping_cost: number | null;
  order_tax_amount: number | null;
  capture_method: string;
  customer_id: string | null;
  description: string | null;
  return_url: string | null;
  setup_future_usage: string | null;
  payment_method: string | null;
  payment_method_type: string | null;
  payment_method_data: string | null;
  metadata: string | null;
  merchant_order_reference_id: string | null;
  client_secret: string;
  client_secret_expires_at: string;
  next_action: string | null;
  error_code: string | null;
  error_message: string | null;
  error_reason: string | null;
  rail: string | null;
  connector: string | null;
  rail_reference: string | null;
  rail_state: string | null;
  request_fingerprint: string;
  request_fields: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  event_id: string;
  account_id: string;
  mode: string;
  event_type: string;
  object_type: string;
  object_id: string;
  payload: string;
  /** pending | delivered | failed | skipped: owned by the dispatcher (a later issue). */
  delivery_status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The card vault (migration 0007): ciphertext and display fields only. */
export interface VaultTokensTable {
  account_id: string;
  mode: string;
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

export interface Database {
  accounts: AccountsTable;
  business_profiles: ProfilesTable;
  api_keys: ApiKeysTable;
  operators: OperatorsTable;
  payments: PaymentsTable;
  webhook_events: WebhookEventsTable;
  vault_tokens: VaultTokensTable;
}
