import type { Mode } from '../../../../protocol/ids';

/** The simulators' record of what they answered, per reference (migration 0014). */
export interface RailLedgerTable {
  account_id: string;
  mode: Mode;
  rail: string;
  operation: string;
  reference: string;
  /** The rail's answer, JSON. */
  answer: string;
  created_at: string;
}

/** Which instance asks the rail about a stuck payment or refund, until when (migration 0014). */
export interface RecoveryLeasesTable {
  account_id: string;
  mode: Mode;
  object_type: string;
  object_id: string;
  leased_until: string;
}

/** The recovery tables, as storage/schema.ts composes them into the database. */
export interface RecoverySchema {
  rail_ledger: RailLedgerTable;
  recovery_leases: RecoveryLeasesTable;
}
