import type { DisputeStatus } from '../../../../protocol/api/disputes';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { DisputeFacets, DisputeFilter, DisputePatch, DisputeRecord, Evidence } from './records';

export interface DisputeStore {
  insertDispute(dispute: DisputeRecord): Promise<InsertResult>;
  findDispute(scope: Scope, disputeId: string): Promise<DisputeRecord | undefined>;
  /**
   * Applies `patch` only if the dispute's status is one of `expectedStatuses` and, when `expectedEvidence` is given,
   * its evidence is still that (the evidence the caller read and changed); undefined if not applied.
   */
  updateDispute(
    scope: Scope,
    disputeId: string,
    patch: DisputePatch,
    expectedStatuses: readonly DisputeStatus[],
    expectedEvidence?: Evidence,
  ): Promise<DisputeRecord | undefined>;
  /** One page of disputes, newest first. */
  listDisputes(scope: Scope, filter: DisputeFilter): Promise<DisputeRecord[]>;
  /** The number of disputes per status created within [from, to] (statuses with none are absent). */
  countDisputesByStatus(scope: Scope, from: Date, to: Date): Promise<Partial<Record<DisputeStatus, number>>>;
  /** The distinct values of the list's facets among the account's disputes. */
  findDisputeFacets(scope: Scope): Promise<DisputeFacets>;
}

/** The disputes stores, as storage/stores.ts composes them into Stores. */
export interface DisputesStores {
  disputes: DisputeStore;
}
