/**
 * REST shapes of subscriptions (the spec's "Subscription" resource and its endpoint table), with Hyperswitch v1
 * names. Every operation carries the X-Profile-Id header. Request objects are strict (api-conventions §4); the
 * spec's "other optional objects" of create are billing, shipping, description and metadata (docs/open-points.md).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PublishableKeyQueryParam } from './key-query';
import { Currency, JsonObject, Metadata, PAYMENT_LIMITS } from './payments';

export const SUBSCRIPTION_LIMITS = { idMax: 64, textMax: 255, defaultListLimit: 10, maxListLimit: 100 } as const;

export const PROFILE_ID_HEADER = 'x-profile-id';

export const SubscriptionIdParam = lazySchema(() => z.string().min(1).max(SUBSCRIPTION_LIMITS.idMax));

const text = lazySchema(() => z.string().max(SUBSCRIPTION_LIMITS.textMax));
const CustomerIdField = lazySchema(() => z.string().min(1).max(PAYMENT_LIMITS.customerIdMax));

/** POST /subscriptions (create and confirm). */
export const CreateAndConfirmSubscriptionRequest = lazySchema(() =>
  z
    .strictObject({
      plan_id: text.unwrap().optional(),
      item_price_id: text.unwrap(),
      coupon_code: text.unwrap().optional(),
      customer_id: CustomerIdField.unwrap(),
      billing: JsonObject.unwrap().optional(),
      shipping: JsonObject.unwrap().optional(),
      description: text.unwrap().optional(),
      payment_details: JsonObject.unwrap(),
      merchant_reference_id: text.unwrap().optional(),
    })
    .meta({ id: 'CreateAndConfirmSubscriptionRequest' }));
export type CreateAndConfirmSubscriptionRequest = z.infer<typeof CreateAndConfirmSubscriptionRequest>;

/** POST /subscriptions/create (confirmed separately). */
export const CreateSubscriptionRequest = lazySchema(() =>
  z
    .strictObject({
      merchant_reference_id: text.unwrap().optional(),
      item_price_id: text.unwrap(),
      plan_id: text.unwrap().optional(),
      coupon_code: text.unwrap().optional(),
      customer_id: CustomerIdField.unwrap(),
      payment_details: JsonObject.unwrap(),
      billing: JsonObject.unwrap().optional(),
      shipping: JsonObject.unwrap().optional(),
      description: text.unwrap().optional(),
      metadata: Metadata.unwrap().optional(),
    })
    .meta({ id: 'CreateSubscriptionRequest' }));
export type CreateSubscriptionRequest = z.infer<typeof CreateSubscriptionRequest>;

const nonNegativeQuery = lazySchema(() => z.string().regex(/^\d{1,10}$/, 'must be a non-negative integer').transform(Number));

export const SubscriptionEstimateQuery = z.strictObject({
  get plan_id() { return text.unwrap(); },
  get customer_id() { return CustomerIdField.unwrap().optional(); },
  get coupon_id() { return text.unwrap().optional(); },
  get trial_days() { return nonNegativeQuery.unwrap().pipe(z.int().max(2_147_483_647)).optional(); },
});
export type SubscriptionEstimateQuery = z.infer<typeof SubscriptionEstimateQuery>;

export const SubscriptionItemsQuery = z.strictObject({
  get limit() { return nonNegativeQuery.unwrap().pipe(z.int().max(2_147_483_647)).optional(); },
  get offset() { return nonNegativeQuery.unwrap().pipe(z.int().max(2_147_483_647)).optional(); },
  get product_id() { return text.unwrap().optional(); },
  get item_type() { return z.enum(['plan', 'addon']); },
  get client_secret() { return z.string().max(256).optional(); },
  get key() { return PublishableKeyQueryParam.unwrap(); },
});
export type SubscriptionItemsQuery = z.infer<typeof SubscriptionItemsQuery>;

export const ListSubscriptionsQuery = z.strictObject({
  get limit() { return nonNegativeQuery.unwrap().pipe(z.int().min(1).max(SUBSCRIPTION_LIMITS.maxListLimit)).optional(); },
  get offset() { return nonNegativeQuery.unwrap().optional(); },
});
export type ListSubscriptionsQuery = z.infer<typeof ListSubscriptionsQuery>;

export const CancelSubscriptionRequest = lazySchema(() =>
  z.strictObject({
    cancel_option: z.enum(['immediately', 'end_of_term', 'specific_date']).optional(),
    cancel_at: z.string().optional(),
    unbilled_charges_option: z.enum(['invoice', 'delete']).optional(),
    credit_option_for_current_term_charges: z.enum(['none', 'prorate', 'full']).optional(),
    account_receivables_handling: z.enum(['no_action', 'schedule_payment_collection', 'write_off']).optional(),
    refundable_credits_handling: z.enum(['no_action', 'schedule_refund']).optional(),
    cancel_reason_code: text.unwrap().optional(),
  }));
export type CancelSubscriptionRequest = z.infer<typeof CancelSubscriptionRequest>;

export const ConfirmSubscriptionRequest = lazySchema(() =>
  z.strictObject({ client_secret: z.string().max(256).optional(), payment_details: JsonObject.unwrap() }));
export type ConfirmSubscriptionRequest = z.infer<typeof ConfirmSubscriptionRequest>;

export const PauseSubscriptionRequest = lazySchema(() =>
  z.strictObject({
    pause_option: z.enum(['immediately', 'end_of_term', 'specific_date']).optional(),
    pause_at: z.string().optional(),
  }));
export type PauseSubscriptionRequest = z.infer<typeof PauseSubscriptionRequest>;

export const ResumeSubscriptionRequest = lazySchema(() =>
  z.strictObject({
    resume_option: z.enum(['immediately', 'specific_date']).optional(),
    resume_date: z.string().optional(),
    charges_handling: z.enum(['invoice_immediately', 'add_to_unbilled_charges']).optional(),
    unpaid_invoices_handling: z.enum(['no_action', 'schedule_payment_collection']).optional(),
  }));
export type ResumeSubscriptionRequest = z.infer<typeof ResumeSubscriptionRequest>;

export const UpdateSubscriptionRequest = lazySchema(() => z.strictObject({ plan_id: text.unwrap(), item_price_id: text.unwrap() }));
export type UpdateSubscriptionRequest = z.infer<typeof UpdateSubscriptionRequest>;

/** The subscription (spec resource). */
export const SubscriptionResponse = lazySchema(() =>
  z
    .object({
      id: z.string(),
      merchant_reference_id: z.string().nullable(),
      status: z.string(),
      plan_id: z.string().nullable(),
      item_price_id: z.string().nullable(),
      profile_id: z.string(),
      client_secret: z.string().nullable(),
      merchant_id: z.string(),
      coupon_code: z.string().nullable(),
      customer_id: z.string(),
      payment: JsonObject.unwrap().nullable(),
      amount: z.int().nullable(),
      currency: Currency.unwrap().nullable(),
      invoice: JsonObject.unwrap().nullable(),
    })
    .meta({ id: 'SubscriptionResponse' }));
export type SubscriptionResponse = z.infer<typeof SubscriptionResponse>;

/** Cancel, pause and resume answer the short form with the time of the change. */
export const SubscriptionStatusResponse = lazySchema(() =>
  z
    .object({
      id: z.string(),
      status: z.string(),
      merchant_reference_id: z.string().nullable(),
      profile_id: z.string(),
      merchant_id: z.string(),
      customer_id: z.string(),
      cancelled_at: z.string().nullable().optional(),
      paused_at: z.string().nullable().optional(),
      next_billing_at: z.string().nullable().optional(),
    })
    .meta({ id: 'SubscriptionStatusResponse' }));
export type SubscriptionStatusResponse = z.infer<typeof SubscriptionStatusResponse>;

export const SubscriptionEstimateResponse = lazySchema(() =>
  z
    .object({
      amount: z.int(),
      currency: Currency.unwrap(),
      plan_id: z.string().nullable(),
      item_price_id: z.string().nullable(),
      coupon_code: z.string().nullable(),
      customer_id: z.string().nullable(),
      line_items: z.array(JsonObject.unwrap()),
    })
    .meta({ id: 'SubscriptionEstimateResponse' }));
export type SubscriptionEstimateResponse = z.infer<typeof SubscriptionEstimateResponse>;
