import type { Mode } from '../../../../protocol/ids';
import type { CaptureMethod } from '../../../../protocol/api/payments';
import type { PaymentStatus } from '../../../../protocol/payments';
import type { AttemptStatus, CaptureStatus } from './records';



export interface PaymentsTable {
  account_id: string;
  mode: Mode;
  payment_id: string;
  profile_id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  amount_capturable: number;
  amount_received: number | null;
  amount_to_capture: number | null;
  shipping_cost: number | null;
  order_tax_amount: number | null;
  capture_method: CaptureMethod;
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
  /** Migration 0013: the stored method and mandate the payment saved or charged. */
  payment_method_id?: string | null;
  mandate_id?: string | null;
  /** Sum of the payment's non-failed refunds (migration 0004; defaults to 0, so payment inserts leave it out). */
  amount_refunded?: number;
  /** Sum of the payment's disputes that hold money (migration 0022; defaults to 0, as amount_refunded). */
  amount_disputed?: number;
  /** Migration 0015: the open authorization of a manual-capture payment. */
  authorized_at?: string | null;
  authorization_expires_at?: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One capture of a manual-capture payment (migration 0015). */
export interface PaymentCapturesTable {
  account_id: string;
  mode: Mode;
  capture_id: string;
  payment_id: string;
  attempt_id: string;
  capture_sequence: number;
  status: CaptureStatus;
  amount: number;
  currency: string;
  connector: string | null;
  connector_capture_id: string | null;
  created_at: string;
  /** Migration 0030: the rail's refusal of a failed capture. */
  error_code: string | null;
  /** Migration 0030: the reference of the capture request (its Idempotency-Key's, in a keyed request). */
  request_reference: string | null;
  error_message: string | null;
}

/** One confirm of a payment (migration 0002). */
export interface PaymentAttemptsTable {
  account_id: string;
  mode: Mode;
  attempt_id: string;
  payment_id: string;
  attempt_number: number;
  status: AttemptStatus;
  amount: number;
  currency: string;
  payment_method: string | null;
  payment_method_type: string | null;
  capture_method: CaptureMethod;
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

/** The payments tables, as storage/schema.ts composes them into the database. */
export interface PaymentsSchema {
  payments: PaymentsTable;
  payment_attempts: PaymentAttemptsTable;
  payment_captures: PaymentCapturesTable;
}
