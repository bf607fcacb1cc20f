/**
 * REST shapes of GET /account/payment_methods (the spec's "Account: list payment methods for a merchant"),
 * following Hyperswitch's PaymentMethodListResponse. The first slice fills the fields it can answer truthfully and
 * returns the rest with their empty values.
 */
import { z } from 'zod';
import { Currency, PaymentExperience, PaymentMethod, PaymentMethodType } from './payments';

/** Query of GET /account/payment_methods. Array parameters may repeat or be comma-separated. */
export const ListPaymentMethodsQuery = z.strictObject({
  client_secret: z.string().min(1).max(256).optional(),
  accepted_countries: z.union([z.string(), z.array(z.string())]).optional(),
  accepted_currencies: z.union([z.string(), z.array(z.string())]).optional(),
  amount: z.string().regex(/^\d{1,16}$/, 'amount must be a non-negative integer').optional(),
  recurring_enabled: z.enum(['true', 'false']).optional(),
  installment_payment_enabled: z.enum(['true', 'false']).optional(),
  limit: z.string().regex(/^\d{1,16}$/, 'limit must be a non-negative integer').optional(),
  card_networks: z.union([z.string(), z.array(z.string())]).optional(),
});
export type ListPaymentMethodsQuery = z.infer<typeof ListPaymentMethodsQuery>;

export const PaymentMethodTypeEntry = z.object({
  payment_method_type: PaymentMethodType,
  payment_experience: z.array(z.object({ payment_experience_type: PaymentExperience, eligible_connectors: z.array(z.string()) })).nullable(),
  card_networks: z.array(z.unknown()).nullable(),
  bank_names: z.array(z.unknown()).nullable(),
  required_fields: z.record(z.string(), z.unknown()).nullable(),
});

export const PaymentMethodEntry = z.object({
  payment_method: PaymentMethod,
  payment_method_types: z.array(PaymentMethodTypeEntry),
});

export const ListPaymentMethodsResponse = z
  .object({
    redirect_url: z.string().nullable(),
    currency: Currency.nullable(),
    payment_methods: z.array(PaymentMethodEntry),
    mandate_payment: z.unknown().nullable(),
    merchant_name: z.string().nullable(),
    show_surcharge_breakup_screen: z.boolean(),
    payment_type: z.string().nullable(),
    request_external_three_ds_authentication: z.boolean(),
    collect_shipping_details_from_wallets: z.boolean().nullable(),
    collect_billing_details_from_wallets: z.boolean().nullable(),
    is_tax_calculation_enabled: z.boolean(),
    is_guest_customer: z.boolean().nullable(),
    sdk_next_action: z.object({ next_action: z.string() }).nullable(),
    payment_method_order: z.array(z.string()).nullable(),
  })
  .meta({ id: 'PaymentMethodList' });
export type ListPaymentMethodsResponse = z.infer<typeof ListPaymentMethodsResponse>;

/** POST /demo/payments answer (demo merchant backend, test mode only). */
export const DemoPaymentResponse = z.object({ payment_id: z.string(), client_secret: z.string() });
export type DemoPaymentResponse = z.infer<typeof DemoPaymentResponse>;

/** GET /health answer. */
export const HealthResponse = z.object({ status: z.literal('ok') });
