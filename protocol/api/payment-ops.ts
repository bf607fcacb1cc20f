/**
 * REST shapes of the payments operations beyond create / confirm / retrieve: list, update, cancel, update_metadata,
 * eligibility, poll status and the manual-capture family. Request objects are strict (an unknown field is refused
 * naming it); limits follow the interface spec, open values are rows of docs/open-points.md.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PublishableKeyQueryParam } from './key-query';
import { PaymentStatus } from '../payments';
import {
  JsonObject,
  Metadata,
  MinorAmount,
  optionalShared,
  PaymentMethod,
  PaymentMethodData,
  PaymentMethodType,
  PaymentResponse,
  PAYMENT_LIMITS,
  RetryAction,
  sharedKeys,
  type SharedField,
} from './payments';

/** Page size of GET /payments/list: default and maximum (Hyperswitch's; a documented policy value). */
export const PAYMENT_LIST_LIMITS = { defaultLimit: 10, maxLimit: 100 } as const;

/** Free-text reasons (cancellation_reason, incremental authorization reason): at most 255 characters. */
const Reason = lazySchema(() => z.string().min(1).max(PAYMENT_LIMITS.referenceMax));

const Rfc3339 = lazySchema(() => z.iso.datetime({ offset: true }));

/** GET /payments/list query (Hyperswitch v1 names, including the dotted created.* bounds). Fields built on first use (getters). */
export const ListPaymentsQuery = z
  .strictObject({
    get customer_id() { return z.string().min(1).max(PAYMENT_LIMITS.customerIdMax).optional(); },
    get starting_after() { return z.string().min(1).max(PAYMENT_LIMITS.paymentIdMax).optional(); },
    get ending_before() { return z.string().min(1).max(PAYMENT_LIMITS.paymentIdMax).optional(); },
    get limit() {
      return z
        .string()
        .regex(/^\d{1,4}$/, `limit must be an integer from 1 to ${PAYMENT_LIST_LIMITS.maxLimit}`)
        .transform(Number)
        .pipe(z.int().min(1).max(PAYMENT_LIST_LIMITS.maxLimit))
        .optional();
    },
    get created() { return Rfc3339.unwrap().optional(); },
    get 'created.lt'() { return Rfc3339.unwrap().optional(); },
    get 'created.gt'() { return Rfc3339.unwrap().optional(); },
    get 'created.lte'() { return Rfc3339.unwrap().optional(); },
    get 'created.gte'() { return Rfc3339.unwrap().optional(); },
  })
  .refine((query) => query.starting_after === undefined || query.ending_before === undefined, {
    path: ['ending_before'],
    message: 'send starting_after or ending_before, not both',
  });
export type ListPaymentsQuery = z.infer<typeof ListPaymentsQuery>;

export const PaymentListResponse = lazySchema(() =>
  z
    .object({ size: z.int(), data: z.array(PaymentResponse.unwrap()) })
    .meta({ id: 'PaymentListResponse' }));
export type PaymentListResponse = z.infer<typeof PaymentListResponse>;

/** Fields of the request table that exist on create only (or on create and confirm only: mandate_id). */
export const CREATE_ONLY_FIELDS = ['business_country', 'business_label', 'profile_id', 'enable_overcapture', 'mandate_id'] as const;

/** Every shared field but mandate_id, which exists on create and confirm only. */
const isUpdatable = (key: SharedField): key is Exclude<SharedField, 'mandate_id'> => key !== 'mandate_id';

/**
 * POST /payments/{payment_id} body: every field of the request table is optional; retry_action exists on update;
 * client_secret is accepted (Hyperswitch: optional, checked when sent). Create-only fields are named and refused.
 */
export const UpdatePaymentRequest = lazySchema(() =>
  z
    .strictObject({
      ...optionalShared(sharedKeys().filter(isUpdatable)),
      client_secret: z.string().min(1).max(256).optional(),
      retry_action: RetryAction.unwrap().optional(),
      business_country: z.unknown().optional(),
      business_label: z.unknown().optional(),
      profile_id: z.unknown().optional(),
      enable_overcapture: z.unknown().optional(),
      mandate_id: z.unknown().optional(),
    })
    .superRefine((body, ctx) => {
      for (const field of CREATE_ONLY_FIELDS) {
        if (body[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: field === 'mandate_id' ? 'mandate_id exists on create and confirm only' : `${field} can be set on create only`,
          });
        }
      }
    })
    .meta({ id: 'UpdatePaymentRequest' }));
export type UpdatePaymentRequest = z.infer<typeof UpdatePaymentRequest>;

/** POST /payments/{payment_id}/cancel body (required). */
export const CancelPaymentRequest = lazySchema(() =>
  z
    .strictObject({
      cancellation_reason: Reason.unwrap(),
      merchant_connector_details: JsonObject.unwrap().optional(),
      all_keys_required: z.boolean().optional(),
    })
    .meta({ id: 'CancelPaymentRequest' }));
export type CancelPaymentRequest = z.infer<typeof CancelPaymentRequest>;

/** POST /payments/{payment_id}/update_metadata body. */
export const UpdateMetadataRequest = lazySchema(() =>
  z
    .strictObject({ metadata: Metadata.unwrap(), feature_metadata: JsonObject.unwrap().optional() })
    .meta({ id: 'UpdateMetadataRequest' }));
export type UpdateMetadataRequest = z.infer<typeof UpdateMetadataRequest>;

export const UpdateMetadataResponse = lazySchema(() =>
  z
    .object({
      payment_id: z.string(),
      metadata: JsonObject.unwrap().nullable(),
      status: PaymentStatus.unwrap(),
      feature_metadata: JsonObject.unwrap().nullable(),
    })
    .meta({ id: 'UpdateMetadataResponse' }));
export type UpdateMetadataResponse = z.infer<typeof UpdateMetadataResponse>;

/**
 * POST /payments/{payment_id}/eligibility body (Hyperswitch PaymentsEligibilityRequest as the spec shows it):
 * payment_method_type carries a PaymentMethod value, payment_method_subtype a PaymentMethodType.
 */
export const EligibilityRequest = lazySchema(() =>
  z
    .strictObject({
      client_secret: z.string().min(1).max(256),
      payment_method_type: PaymentMethod.unwrap(),
      payment_method_subtype: PaymentMethodType.unwrap().optional(),
      payment_method_data: PaymentMethodData.unwrap(),
      browser_info: JsonObject.unwrap().optional(),
    })
    .meta({ id: 'EligibilityRequest' }));
export type EligibilityRequest = z.infer<typeof EligibilityRequest>;

/** Hyperswitch SdkNextAction: `confirm`, or `{deny: {message}}` when the payment method cannot take this payment. */
export const SdkNextAction = lazySchema(() =>
  z.object({
    next_action: z.union([z.literal('confirm'), z.object({ deny: z.object({ message: z.string() }) })]),
  }));

export const EligibilityResponse = lazySchema(() =>
  z
    .object({ payment_id: z.string(), sdk_next_action: SdkNextAction.unwrap() })
    .meta({ id: 'EligibilityResponse' }));
export type EligibilityResponse = z.infer<typeof EligibilityResponse>;

export const PollStatusResponse = lazySchema(() =>
  z
    .object({ poll_id: z.string(), status: z.enum(['pending', 'completed', 'not_found']) })
    .meta({ id: 'PollStatus' }));
export type PollStatusResponse = z.infer<typeof PollStatusResponse>;

export const PollIdParam = lazySchema(() => z.string().min(1).max(128));

/** Query of GET /poll/status/{poll_id}: the payment's client_secret, required with a publishable key. */
export const PollStatusQuery = z.strictObject({
  get client_secret() { return z.string().min(1).max(256).optional(); },
  get key() { return PublishableKeyQueryParam.unwrap(); },
});
export type PollStatusQuery = z.infer<typeof PollStatusQuery>;

/** POST /payments/{payment_id}/capture body (required). */
export const CapturePaymentRequest = lazySchema(() =>
  z
    .strictObject({
      merchant_id: z.string().max(PAYMENT_LIMITS.referenceMax).optional(),
      amount_to_capture: MinorAmount.unwrap().optional(),
      refund_uncaptured_amount: z.boolean().optional(),
      statement_descriptor_suffix: z.string().max(PAYMENT_LIMITS.referenceMax).optional(),
      statement_descriptor_prefix: z.string().max(PAYMENT_LIMITS.referenceMax).optional(),
      merchant_connector_details: JsonObject.unwrap().optional(),
      all_keys_required: z.boolean().optional(),
    })
    .meta({ id: 'CapturePaymentRequest' }));
export type CapturePaymentRequest = z.infer<typeof CapturePaymentRequest>;

/** POST /payments/{payment_id}/cancel_post_capture body (required). */
export const CancelPostCaptureRequest = lazySchema(() =>
  z
    .strictObject({ cancellation_reason: Reason.unwrap().optional() })
    .meta({ id: 'CancelPostCaptureRequest' }));
export type CancelPostCaptureRequest = z.infer<typeof CancelPostCaptureRequest>;

/** POST /payments/{payment_id}/incremental_authorization body: amount is the new total authorized amount. */
export const IncrementalAuthorizationRequest = lazySchema(() =>
  z
    .strictObject({ amount: MinorAmount.unwrap(), reason: Reason.unwrap().optional() })
    .meta({ id: 'IncrementalAuthorizationRequest' }));
export type IncrementalAuthorizationRequest = z.infer<typeof IncrementalAuthorizationRequest>;
