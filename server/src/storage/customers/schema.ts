/** Row shapes of the customers and ephemeral_keys tables (conventions as in schema.ts). */
import type { Mode } from '../../../../protocol/ids';

export interface CustomersTable {
  account_id: string;
  mode: Mode;
  customer_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  phone_country_code: string | null;
  description: string | null;
  address: string | null;
  metadata: string | null;
  tax_registration_id: string | null;
  document_details: string | null;
  default_payment_method_id: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface EphemeralKeysTable {
  key_id: string;
  account_id: string;
  mode: Mode;
  customer_id: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
  /** Null on keys created before migration 0022. */
  issuer_key_id: string | null;
}

/** The customers tables, as storage/schema.ts composes them into the database. */
export interface CustomersSchema {
  customers: CustomersTable;
  ephemeral_keys: EphemeralKeysTable;
}
