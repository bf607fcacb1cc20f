import type { Mode } from '../../../../protocol/ids';
import type { DisputeStage, DisputeStatus } from '../../../../protocol/api/disputes';

export interface DisputesTable {
  account_id: string;
  mode: Mode;
  dispute_id: string;
  payment_id: string;
  profile_id: string;
  amount: number;
  currency: string;
  stage: DisputeStage;
  status: DisputeStatus;
  reason: string | null;
  rail: string | null;
  connector: string | null;
  merchant_connector_id: string | null;
  /** JSON object: evidence field to text or file_id. */
  evidence: string;
  evidence_submitted_at: string | null;
  challenge_required_by: string | null;
  is_already_refunded: number;
  created_at: string;
  updated_at: string;
}

/** The disputes tables, as storage/schema.ts composes them into the database. */
export interface DisputesSchema {
  disputes: DisputesTable;
}
