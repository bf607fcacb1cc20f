/**
 * REST shapes of the refunds endpoints (create, list, retrieve, update) and the refund object, as zod schemas with
 * same-named types. Request objects are strict (api-conventions §4). Fields and limits follow the interface spec's
 * "Refund" resource, its Refunds endpoint table and its Limits table; the values it leaves open are rows in
 * docs/open-points.md.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { Currency, JsonObject, Metadata, PAYMENT_LIMITS } from './payments';

/** Limits of the spec's Limits table (refund rows), plus Rail's list page size (open point). */
export const REFUND_LIMITS = {
  refundIdMax: 64,
  paymentIdMax: 62,
  reasonMax: 255,
  merchantIdMax: 255,
  /** Refund amount >= 100 (spec Limits table). */
  minAmount: 100,
  maxAmount: PAYMENT_LIMITS.maxAmount,
  /** POST /refunds/list: page size when limit is omitted, and the largest page (Hyperswitch: 10 and 100). */
  listDefaultLimit: 10,
  listMaxLimit: 100,
  /** POST /refunds/list: most values of connector or merchant_connector_id (open point: each is a query parameter). */
  listMaxFilterValues: 100,
} as const;

/** Refund statuses (spec "States: Refund"; Hyperswitch v1 RefundStatus names). */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'review'] as const;
export const RefundStatus = lazySchema(() => z.enum(REFUND_STATUSES));
export type RefundStatus = z.infer<typeof RefundStatus>;

export const RefundType = lazySchema(() => z.enum(['scheduled', 'instant']));
export type RefundType = z.infer<typeof RefundType>;

/** Merchant-chosen refund_id: [A-Za-z0-9_-], 1..64 characters (a v4 UUID fits). */
export const REFUND_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const RefundIdParam = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(REFUND_LIMITS.refundIdMax)
    .regex(REFUND_ID_PATTERN, 'refund_id may contain only A-Z, a-z, 0-9, _ and -'));

/**
 * refund_id of a new refund: also never `list`, since POST /refunds/list is the list operation and a refund of that id
 * could never be updated (POST /refunds/{refund_id}).
 */
const NewRefundId = lazySchema(() => RefundIdParam.unwrap().refine((id) => id !== 'list', 'refund_id may not be "list" (the path of the list operation)'));

const Reason = lazySchema(() => z.string().max(REFUND_LIMITS.reasonMax));

/** POST /refunds body. */
export const CreateRefundRequest = lazySchema(() =>
  z
    .strictObject({
      payment_id: z.string().min(1).max(REFUND_LIMITS.paymentIdMax),
      refund_id: NewRefundId.unwrap().optional(),
      merchant_id: z.string().max(REFUND_LIMITS.merchantIdMax).optional(),
      amount: z.int().min(REFUND_LIMITS.minAmount).max(REFUND_LIMITS.maxAmount).optional(),
      reason: Reason.unwrap().optional(),
      refund_type: RefundType.unwrap().optional(),
      metadata: Metadata.unwrap().optional(),
      merchant_connector_details: JsonObject.unwrap().optional(),
      all_keys_required: z.boolean().optional(),
    })
    .meta({ id: 'CreateRefundRequest' }));
export type CreateRefundRequest = z.infer<typeof CreateRefundRequest>;

/**
 * GET /refunds/{refund_id} query (Hyperswitch RefundsRetrieveRequest): force_sync=true asks the rail about a refund it
 * has not settled yet (pending, review).
 */
export const RetrieveRefundQuery = z.strictObject({ get force_sync() { return z.enum(['true', 'false']).optional(); } });
export type RetrieveRefundQuery = z.infer<typeof RetrieveRefundQuery>;

/** POST /refunds/{refund_id} body. */
export const UpdateRefundRequest = lazySchema(() =>
  z
    .strictObject({
      reason: Reason.unwrap().optional(),
      metadata: Metadata.unwrap().optional(),
    })
    .meta({ id: 'UpdateRefundRequest' }));
export type UpdateRefundRequest = z.infer<typeof UpdateRefundRequest>;

/** RFC 3339 date-time with an offset or Z. */
const DateTime = lazySchema(() => z.iso.datetime({ offset: true }));

/** amount_filter of the list (Hyperswitch AmountFilter): inclusive bounds in minor units. */
export const AmountFilter = lazySchema(() =>
  z.strictObject({
    start_amount: z.int().min(0).max(REFUND_LIMITS.maxAmount).optional(),
    end_amount: z.int().min(0).max(REFUND_LIMITS.maxAmount).optional(),
  }));

/** POST /refunds/list body. */
export const ListRefundsRequest = lazySchema(() =>
  z
    .strictObject({
      start_time: DateTime.unwrap(),
      end_time: DateTime.unwrap().optional(),
      payment_id: z.string().min(1).max(REFUND_LIMITS.paymentIdMax).optional(),
      refund_id: z.string().min(1).max(REFUND_LIMITS.refundIdMax).optional(),
      profile_id: z.string().min(1).max(64).optional(),
      limit: z.int().min(1).max(REFUND_LIMITS.listMaxLimit).optional(),
      offset: z.int().min(0).max(REFUND_LIMITS.maxAmount).optional(),
      amount_filter: AmountFilter.unwrap().optional(),
      connector: z.array(z.string().max(255)).max(REFUND_LIMITS.listMaxFilterValues).optional(),
      merchant_connector_id: z.array(z.string().max(255)).max(REFUND_LIMITS.listMaxFilterValues).optional(),
      currency: z.array(Currency.unwrap()).optional(),
      refund_status: z.array(RefundStatus.unwrap()).optional(),
    })
    .superRefine((body, ctx) => {
      if (body.end_time !== undefined && new Date(body.end_time) < new Date(body.start_time)) {
        ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time must not be before start_time' });
      }
      const amounts = body.amount_filter;
      if (amounts?.start_amount !== undefined && amounts.end_amount !== undefined && amounts.end_amount < amounts.start_amount) {
        ctx.addIssue({ code: 'custom', path: ['amount_filter', 'end_amount'], message: 'end_amount must not be below start_amount' });
      }
    })
    .meta({ id: 'ListRefundsRequest' }));
export type ListRefundsRequest = z.infer<typeof ListRefundsRequest>;

/** The refund object (spec "Refund" fields, plus profile_id, connector and refund_type as Hyperswitch returns them). */
export const RefundResponse = lazySchema(() =>
  z
    .object({
      refund_id: z.string(),
      payment_id: z.string(),
      amount: z.int(),
      currency: Currency.unwrap(),
      status: RefundStatus.unwrap(),
      reason: z.string().nullable(),
      metadata: JsonObject.unwrap().nullable(),
      error_message: z.string().nullable(),
      error_code: z.string().nullable(),
      unified_code: z.string().nullable(),
      unified_message: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      profile_id: z.string(),
      connector: z.string().nullable(),
      refund_type: RefundType.unwrap(),
    })
    .meta({ id: 'Refund' }));
export type RefundResponse = z.infer<typeof RefundResponse>;

/** POST /refunds/list response: count = refunds in this page, total_count = all refunds matching the filter. */
export const RefundListResponse = lazySchema(() =>
  z
    .object({
      count: z.int(),
      total_count: z.int(),
      data: z.array(RefundResponse.unwrap()),
    })
    .meta({ id: 'RefundList' }));
export type RefundListResponse = z.infer<typeof RefundListResponse>;
