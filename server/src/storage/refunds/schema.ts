import type { Mode } from '../../../../protocol/ids';
import type { RefundStatus } from '../../../../protocol/api/refunds';



export interface RefundsTable {
  account_id: string;
  mode: Mode;
  refund_id: string;
  payment_id: string;
  profile_id: string;
  status: RefundStatus;
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

/** The refunds tables, as storage/schema.ts composes them into the database. */
export interface RefundsSchema {
  refunds: RefundsTable;
}
