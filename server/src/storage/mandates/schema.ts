import type { Mode } from '../../../../protocol/ids';
import type { MandateStatus } from '../../../../protocol/api/mandates';

/** Mandates (migration 0013). */
export interface MandatesTable {
  account_id: string;
  mode: Mode;
  mandate_id: string;
  customer_id: string;
  payment_method_id: string;
  payment_method: string;
  payment_method_type: string | null;
  card: string | null;
  customer_acceptance: string | null;
  status: MandateStatus;
  origin_payment_id: string;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

export interface MandatesSchema {
  mandates: MandatesTable;
}
