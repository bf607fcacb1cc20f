/**
 * Row shapes of the SQL tables, shared by SQLite and PostgreSQL. Dialect-neutral column types only:
 * timestamps are ISO 8601 UTC text with milliseconds (fixed width, so they sort and compare as text), JSON is
 * text, booleans are integers 0/1, money is bigint minor units (parsed back to number; see database.ts).
 * Every merchant-data table leads with account_id (and mode) so a distributed PostgreSQL could shard on it.
 */
import type { CustomersTable, EphemeralKeysTable } from './customers/schema';

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
  /** Migration 0002. */
  cancellation_reason: string | null;
  /** Sum of the payment's non-failed refunds (migration 0004; defaults to 0, so payment inserts leave it out). */
  amount_refunded?: number;
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
  /** pending | delivered | failed | no_endpoint: owned by the dispatcher (server/src/webhooks/). */
  delivery_status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /** Added by migration 0005 (webhook delivery). */
  lease_id: string | null;
  locked_until: string | null;
  scheduled_attempt_count: number | null;
  last_attempt_at: string | null;
  failure_reason: string | null;
}

export interface WebhookAttemptsTable {
  account_id: string;
  mode: string;
  event_id: string;
  attempt_number: number;
  trigger: string;
  url: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
  succeeded: number;
}

/** One confirm of a payment (migration 0002). */
export interface PaymentAttemptsTable {
  account_id: string;
  mode: string;
  attempt_id: string;
  payment_id: string;
  attempt_number: number;
  status: string;
  amount: number;
  currency: string;
  payment_method: string | null;
  payment_method_type: string | null;
  capture_method: string;
  connector: string | null;
  reference_id: string | null;
  error_code: string | null;
  error_message: string | null;
  error_reason: string | null;
  /** Set when the rail asked the customer to act: GET /poll/status/{poll_id} knows it. */
  poll_id: string | null;
  cancellation_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefundsTable {
  account_id: string;
  mode: string;
  refund_id: string;
  payment_id: string;
  profile_id: string;
  status: string;
  amount: number;
  currency: string;
  reason: string | null;
  metadata: string | null;
  refund_type: string;
  rail: string | null;
  connector: string | null;
  rail_reference: string | null;
  error_code: string | null;
  error_message: string | null;
  unified_code: string | null;
  unified_message: string | null;
  request_fingerprint: string;
  created_at: string;
  updated_at: string;
}

/** Idempotency-Key claims and stored responses (migration 0006). */
export interface IdempotencyKeysTable {
  account_id: string;
  mode: string;
  key_kind: string;
  idempotency_key: string;
  request_fingerprint: string;
  request_method: string;
  request_path: string;
  /** in_flight | done */
  status: string;
  claim_token: string;
  locked_at: string;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
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
  customers: CustomersTable;
  ephemeral_keys: EphemeralKeysTable;
  payment_attempts: PaymentAttemptsTable;
  refunds: RefundsTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  vault_tokens: VaultTokensTable;
}
