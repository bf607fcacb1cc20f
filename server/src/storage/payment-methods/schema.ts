import type { Mode } from '../../../../protocol/ids';

/** Stored payment methods (migration 0013). JSON columns are text; booleans integers 0/1. */
export interface StoredPaymentMethodsTable {
  account_id: string;
  mode: Mode;
  payment_method_id: string;
  customer_id: string | null;
  payment_method: string;
  payment_method_type: string | null;
  payment_method_issuer: string | null;
  card: string | null;
  card_ciphertext: string | null;
  upi: string | null;
  wallet: string | null;
  bank_transfer: string | null;
  metadata: string | null;
  rail: string | null;
  recurring_enabled: number;
  origin_payment_id: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Saves waiting for their payment's outcome (migration 0013); instrument is JSON holding only ciphertext of a card. */
export interface PendingMethodSavesTable {
  account_id: string;
  mode: Mode;
  payment_id: string;
  instrument: string;
  created_at: string;
}

export interface PaymentMethodsSchema {
  stored_payment_methods: StoredPaymentMethodsTable;
  pending_method_saves: PendingMethodSavesTable;
}
