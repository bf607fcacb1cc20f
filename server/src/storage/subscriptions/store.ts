import type { InsertResult, Scope } from '../../kernel/store-types';
import type { SubscriptionPatch, SubscriptionRecord, SubscriptionStatus } from './records';

export interface SubscriptionStore {
  insertSubscription(subscription: SubscriptionRecord): Promise<InsertResult>;
  findSubscription(scope: Scope, profileId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined>;
  /** Newest first. */
  listSubscriptions(scope: Scope, profileId: string, limit: number, offset: number): Promise<SubscriptionRecord[]>;
  /**
   * Applies the patch only if the status is one of `from` and, when `version` is given, the row is still at that
   * version (a conditional UPDATE); undefined when it did not apply.
   */
  updateSubscriptionIf(scope: Scope, subscriptionId: string, from: readonly SubscriptionStatus[], patch: SubscriptionPatch, version?: number): Promise<SubscriptionRecord | undefined>;
  /**
   * Active subscriptions whose next billing is due at `now` or that have a scheduled change, oldest first
   * (next_billing_at, then subscription_id); with `after`, only those behind that one in this order (keyset paging).
   */
  listDueSubscriptions(scope: Scope, now: Date, limit: number, after?: DueSubscriptionCursor): Promise<SubscriptionRecord[]>;
  /**
   * Subscriptions (of any status) with a renewal payment whose outcome is not applied yet (renewalPaymentId), oldest
   * first (updated_at, then subscription_id); with `after`, only those behind that one in this order (keyset paging).
   */
  listOutstandingRenewals(scope: Scope, limit: number, after?: OutstandingRenewalCursor): Promise<SubscriptionRecord[]>;
}

/** Where a listing of outstanding renewals resumes: the last one listed before, as it was listed. */
export type OutstandingRenewalCursor = Pick<SubscriptionRecord, 'updatedAt' | 'subscriptionId'>;

/** Where a listing of due subscriptions resumes: the last one listed before, as it was listed. */
export type DueSubscriptionCursor = Pick<SubscriptionRecord, 'nextBillingAt' | 'subscriptionId'>;

export interface SubscriptionsStores {
  subscriptions: SubscriptionStore;
}
