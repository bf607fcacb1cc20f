/**
 * Records of the refunds store (the server's internal model; the wire format is protocol/api/refunds.ts and the
 * SQL row shape is RefundsTable in schema.ts).
 */
import type { Currency } from '../../../../protocol/currency';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { RefundStatus, RefundType } from '../../../../protocol/api/refunds';
import type { Scope } from '../../kernel/store-types';

/** Where a listing of refunds in (created_at, account_id, mode, refund_id) order resumes: after this one (a refund record is one). */
export interface RefundCreatedCursor extends Scope {
  createdAt: Date;
  refundId: string;
}

export interface RefundRecord extends Scope {
  refundId: string;
  paymentId: string;
  /** The payment's business profile. */
  profileId: string;
  status: RefundStatus;
  amount: number;
  currency: Currency;
  reason: string | null;
  metadata: JsonObject | null;
  refundType: RefundType;
  /** Rail and connector of the payment, and the rail's reference for the refund. */
  rail: string | null;
  connector: string | null;
  railReference: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  unifiedCode: string | null;
  unifiedMessage: string | null;
  /** SHA-256 of the canonical create body: refund_id idempotency (same id + same body replays). */
  requestFingerprint: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change. */
export type RefundPatch = Partial<
  Pick<RefundRecord, 'status' | 'reason' | 'metadata' | 'railReference' | 'errorCode' | 'errorMessage' | 'unifiedCode' | 'unifiedMessage'>
> & { updatedAt: Date };

/** The list filter, already resolved by the core (times as Dates, defaults applied). */
export interface RefundFilter {
  createdFrom: Date;
  createdTo: Date;
  paymentId?: string | undefined;
  refundId?: string | undefined;
  profileId?: string | undefined;
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
  connectors?: readonly string[] | undefined;
  /** Refunds carry no merchant connector id yet: a non-empty list matches nothing. */
  merchantConnectorIds?: readonly string[] | undefined;
  currencies?: readonly Currency[] | undefined;
  statuses?: readonly RefundStatus[] | undefined;
  limit: number;
  offset: number;
}

export interface RefundPage {
  /** All refunds matching the filter, ignoring limit and offset. */
  totalCount: number;
  refunds: RefundRecord[];
}
