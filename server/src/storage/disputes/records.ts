/**
 * Records of the disputes store (the server's internal model; the wire format is protocol/api/disputes.ts and the
 * SQL row shape is DisputesTable in schema.ts).
 */
import type { Currency } from '../../../../protocol/currency';
import type { DisputeStage, DisputeStatus, EvidenceField } from '../../../../protocol/api/disputes';
import type { Scope } from '../../kernel/store-types';

/** The evidence of a dispute: evidence field to text or file_id (file fields hold a file_id). */
export type Evidence = Partial<Record<EvidenceField, string>>;

export interface DisputeRecord extends Scope {
  disputeId: string;
  paymentId: string;
  /** The payment's business profile. */
  profileId: string;
  /** Disputed amount in minor units. */
  amount: number;
  currency: Currency;
  stage: DisputeStage;
  status: DisputeStatus;
  /** The reason the rail reported. */
  reason: string | null;
  rail: string | null;
  connector: string | null;
  merchantConnectorId: string | null;
  evidence: Evidence;
  evidenceSubmittedAt: Date | null;
  challengeRequiredBy: Date | null;
  /** Whether the payment had refunds when the dispute arrived. */
  isAlreadyRefunded: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change. */
export type DisputePatch = Partial<Pick<DisputeRecord, 'status' | 'evidence' | 'evidenceSubmittedAt'>> & { updatedAt: Date };

/** The list filter, already resolved by the core (times as Dates, defaults applied). */
export interface DisputeFilter {
  createdFrom?: Date | undefined;
  createdTo: Date;
  disputeId?: string | undefined;
  paymentId?: string | undefined;
  profileId?: string | undefined;
  statuses?: readonly DisputeStatus[] | undefined;
  stages?: readonly DisputeStage[] | undefined;
  reason?: string | undefined;
  currencies?: readonly string[] | undefined;
  merchantConnectorId?: string | undefined;
  limit: number;
  offset: number;
}

/** The values present in the account's disputes (GET /disputes/filter). */
export interface DisputeFacets {
  currencies: Currency[];
  statuses: DisputeStatus[];
  stages: DisputeStage[];
  merchantConnectorIds: string[];
}
