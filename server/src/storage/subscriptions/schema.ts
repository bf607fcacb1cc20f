import type { Mode } from '../../../../protocol/ids';

/** Subscriptions (migrations 0013, 0027, 0031). */
export interface SubscriptionsTable {
  account_id: string;
  mode: Mode;
  subscription_id: string;
  profile_id: string;
  customer_id: string;
  merchant_reference_id: string | null;
  status: string;
  plan_id: string;
  item_price_id: string;
  coupon_code: string | null;
  amount: number;
  currency: string;
  client_secret: string;
  last_payment_id: string | null;
  /** Migration 0027. */
  renewal_payment_id: string | null;
  /** Migration 0031. */
  renewal_period_start: string | null;
  mandate_id: string | null;
  billing: string | null;
  shipping: string | null;
  description: string | null;
  scheduled_change: string | null;
  next_billing_at: string | null;
  paused_at: string | null;
  cancelled_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionsSchema {
  subscriptions: SubscriptionsTable;
}
