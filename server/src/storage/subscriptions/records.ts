import type { Currency } from '../../../../protocol/currency';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { Scope } from '../../kernel/store-types';

/** Statuses (Hyperswitch v1 SubscriptionStatus names the service enters; docs/open-points.md). */
export type SubscriptionStatus = 'created' | 'pending' | 'active' | 'paused' | 'unpaid' | 'cancelled';

/** A change asked for a later time (end_of_term, specific_date), applied by the renewal tick when it is due. */
export interface ScheduledChange {
  kind: 'pause' | 'cancel';
  at: string;
}

export interface SubscriptionRecord extends Scope {
  subscriptionId: string;
  profileId: string;
  customerId: string;
  merchantReferenceId: string | null;
  status: SubscriptionStatus;
  planId: string;
  itemPriceId: string;
  couponCode: string | null;
  amount: number;
  currency: Currency;
  clientSecret: string;
  /** The payment of the last invoice (first payment or renewal). */
  lastPaymentId: string | null;
  /** The renewal payment a period was claimed for, until its outcome is applied (a renewal the rail has not decided). */
  renewalPaymentId: string | null;
  /**
   * The start of the period that renewal bills, fixed by its claim (null with renewalPaymentId, and on claims stored
   * before migration 0031).
   */
  renewalPeriodStart: Date | null;
  mandateId: string | null;
  billing: JsonObject | null;
  shipping: JsonObject | null;
  description: string | null;
  scheduledChange: ScheduledChange | null;
  nextBillingAt: Date | null;
  pausedAt: Date | null;
  cancelledAt: Date | null;
  /** Incremented on every change: names the change in its webhook event (docs/open-points.md). */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type SubscriptionPatch = Partial<
  Pick<
    SubscriptionRecord,
    | 'status'
    | 'planId'
    | 'itemPriceId'
    | 'amount'
    | 'currency'
    | 'lastPaymentId'
    | 'renewalPaymentId'
    | 'renewalPeriodStart'
    | 'mandateId'
    | 'scheduledChange'
    | 'nextBillingAt'
    | 'pausedAt'
    | 'cancelledAt'
  >
> & { updatedAt: Date };
