/**
 * REST shapes of mandates (the spec's "Mandate" resource and its endpoint table), with Hyperswitch v1 names
 * (MandateResponse, MandateRevokedResponse, MandateListConstraints).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { CustomerAcceptance } from './customer-acceptance';
import { PaymentMethod, PaymentMethodType } from './payments';

export const MANDATE_STATUSES = ['active', 'inactive', 'pending', 'revoked'] as const;
export const MandateStatus = lazySchema(() => z.enum(MANDATE_STATUSES));
export type MandateStatus = z.infer<typeof MandateStatus>;

export const MANDATE_LIMITS = { idMax: 64, defaultListLimit: 10, maxListLimit: 100 } as const;

export const MandateIdParam = lazySchema(() => z.string().min(1).max(MANDATE_LIMITS.idMax));

const int64Query = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a non-negative integer')
    .transform(Number));

/** GET /mandates/list query. */
export const ListMandatesQuery = z.strictObject({
  get limit() { return int64Query.unwrap().pipe(z.int().min(1).max(MANDATE_LIMITS.maxListLimit)).optional(); },
  get offset() { return int64Query.unwrap().optional(); },
  get mandate_status() { return MandateStatus.unwrap().optional(); },
});
export type ListMandatesQuery = z.infer<typeof ListMandatesQuery>;

/** The card of a mandate (Hyperswitch MandateCardDetails; never the number). */
export const MandateCard = lazySchema(() =>
  z.object({
    last4_digits: z.string().nullable(),
    card_exp_month: z.string().nullable(),
    card_exp_year: z.string().nullable(),
    card_holder_name: z.string().nullable(),
    card_network: z.string().nullable(),
    scheme: z.string().nullable(),
  }));

export const MandateResponse = lazySchema(() =>
  z
    .object({
      mandate_id: z.string(),
      status: MandateStatus.unwrap(),
      payment_method_id: z.string(),
      payment_method: PaymentMethod.unwrap(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
      card: MandateCard.unwrap().nullable(),
      customer_acceptance: CustomerAcceptance.unwrap().nullable(),
      customer_id: z.string(),
      created_at: z.string(),
      revoked_at: z.string().nullable(),
    })
    .meta({ id: 'MandateResponse' }));
export type MandateResponse = z.infer<typeof MandateResponse>;

export const MandateRevokedResponse = lazySchema(() =>
  z
    .object({ mandate_id: z.string(), status: MandateStatus.unwrap(), error_code: z.string().nullable(), error_message: z.string().nullable() })
    .meta({ id: 'MandateRevokedResponse' }));
export type MandateRevokedResponse = z.infer<typeof MandateRevokedResponse>;
