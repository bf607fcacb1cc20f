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
  /** Active subscriptions whose next billing is due at `now` or that have a scheduled change, oldest first. */
  listDueSubscriptions(scope: Scope, now: Date, limit: number): Promise<SubscriptionRecord[]>;
  /** Subscriptions (of any status) with a renewal payment whose outcome is not applied yet (renewalPaymentId), oldest first. */
  listOutstandingRenewals(scope: Scope, limit: number): Promise<SubscriptionRecord[]>;
}

export interface SubscriptionsStores {
  subscriptions: SubscriptionStore;
}
