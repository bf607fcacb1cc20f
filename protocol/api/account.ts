/**
 * REST shapes of GET /account/payment_methods (the spec's "Account: list payment methods for a merchant"),
 * following Hyperswitch's PaymentMethodListRequest and PaymentMethodListResponse.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PublishableKeyQueryParam } from './key-query';
import { CURRENCIES } from '../currency';
import { CARD_NETWORKS, COUNTRIES } from './enums';
import { Currency, PaymentExperience, PaymentMethod, PaymentMethodType, PaymentResponse, PaymentType } from './payments';

const CardNetwork = lazySchema(() => z.enum(CARD_NETWORKS));

/**
 * A list query parameter: repeated (`accepted_countries=IN&accepted_countries=KE`), bracketed
 * (`accepted_countries[]=IN`) or comma-separated (`accepted_countries=IN,KE`); every item must be one of `values`.
 */
function listParam<T extends string>(values: readonly T[], what: string) {
  const allowed = new Set<string>(values);
  return z.union([z.string(), z.array(z.string())]).transform((raw, ctx): T[] => {
    const items = (Array.isArray(raw) ? raw : [raw]).flatMap((item) => item.split(',')).map((item) => item.trim()).filter((item) => item !== '');
    const bad = items.findIndex((item) => !allowed.has(item));
    if (bad >= 0) {
      ctx.addIssue({ code: 'custom', message: `item ${bad} is not a ${what} (see /openapi.json)` });
      return z.NEVER;
    }
    return items as T[];
  });
}

/** A non-negative int64 parameter as text; values above 2^53 - 1 are refused like amounts in bodies. */
const int64Param = lazySchema(() =>
  z
    .string()
    .regex(/^\d{1,16}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.int().max(Number.MAX_SAFE_INTEGER)));
const booleanParam = lazySchema(() => z.enum(['true', 'false']).transform((value) => value === 'true'));

const countries = lazySchema(() => listParam(COUNTRIES, 'Country code'));
const currencies = lazySchema(() => listParam(CURRENCIES, 'Currency code'));
const cardNetworks = lazySchema(() => listParam(CARD_NETWORKS, 'card network'));

/** Query of GET /account/payment_methods (Hyperswitch PaymentMethodListRequest). */
export const ListPaymentMethodsQuery = z.strictObject({
  get client_secret() { return z.string().min(1).max(256).optional(); },
  get key() { return PublishableKeyQueryParam.unwrap(); },
  get accepted_countries() { return countries.unwrap().optional(); },
  get 'accepted_countries[]'() { return countries.unwrap().optional(); },
  get accepted_currencies() { return currencies.unwrap().optional(); },
  get 'accepted_currencies[]'() { return currencies.unwrap().optional(); },
  get amount() { return int64Param.unwrap().optional(); },
  get recurring_enabled() { return booleanParam.unwrap().optional(); },
  get installment_payment_enabled() { return booleanParam.unwrap().optional(); },
  get limit() { return int64Param.unwrap().optional(); },
  get card_networks() { return cardNetworks.unwrap().optional(); },
  get 'card_networks[]'() { return cardNetworks.unwrap().optional(); },
  /**
   * `true` (with a client_secret): the answer also holds `payment`, the payment as GET /payments/{id} answers it, so
   * the payment element loads with one request instead of two (issue 17 §4; docs/open-points.md).
   */
  get expand_payment() { return z.enum(['true', 'false']).optional(); },
});
export type ListPaymentMethodsQuery = z.infer<typeof ListPaymentMethodsQuery>;

export const PaymentMethodTypeEntry = lazySchema(() =>
  z.object({
    payment_method_type: PaymentMethodType.unwrap(),
    payment_experience: z.array(z.object({ payment_experience_type: PaymentExperience.unwrap(), eligible_connectors: z.array(z.string()) })).nullable(),
    card_networks: z
      .array(z.object({ card_network: CardNetwork.unwrap(), surcharge_details: z.unknown().nullable(), eligible_connectors: z.array(z.string()) }))
      .nullable(),
    bank_names: z.array(z.unknown()).nullable(),
    required_fields: z.record(z.string(), z.unknown()).nullable(),
  }));

export const PaymentMethodEntry = lazySchema(() =>
  z.object({
    payment_method: PaymentMethod.unwrap(),
    payment_method_types: z.array(PaymentMethodTypeEntry.unwrap()),
  }));

export const ListPaymentMethodsResponse = lazySchema(() =>
  z
    .object({
      redirect_url: z.string().nullable(),
      currency: Currency.unwrap().nullable(),
      payment_methods: z.array(PaymentMethodEntry.unwrap()),
      mandate_payment: z.unknown().nullable(),
      merchant_name: z.string().nullable(),
      checkout_branding: z.record(z.string(), z.unknown()).nullable(),
      payment_method_order: z.array(z.string()).nullable(),
      show_surcharge_breakup_screen: z.boolean(),
      payment_type: PaymentType.unwrap().nullable(),
      request_external_three_ds_authentication: z.boolean(),
      collect_shipping_details_from_wallets: z.boolean().nullable(),
      collect_billing_details_from_wallets: z.boolean().nullable(),
      is_tax_calculation_enabled: z.boolean(),
      sdk_next_action: z.object({ next_action: z.string() }).nullable(),
      is_guest_customer: z.boolean().nullable(),
      intent_data: z.record(z.string(), z.unknown()).nullable(),
      card_checkout_config: z.record(z.string(), z.unknown()).nullable(),
    })
    .meta({ id: 'PaymentMethodList' }));
export type ListPaymentMethodsResponse = z.infer<typeof ListPaymentMethodsResponse>;

/** GET /account/payment_methods?client_secret=...&expand_payment=true: the list and the payment it was made for. */
export const PaymentMethodsWithPaymentResponse = lazySchema(() =>
  ListPaymentMethodsResponse.unwrap().extend({ payment: PaymentResponse.unwrap() }).meta({ id: 'PaymentMethodListWithPayment' }));
export type PaymentMethodsWithPaymentResponse = z.infer<typeof PaymentMethodsWithPaymentResponse>;
/** What GET /account/payment_methods answers: the list, or the list and its payment (expand_payment=true). */
export const ListPaymentMethodsAnswer = lazySchema(() =>
  z.union([PaymentMethodsWithPaymentResponse.unwrap(), ListPaymentMethodsResponse.unwrap()]));

/**
 * POST /demo/payments body (demo merchant backend, test mode only): the currency picks which methods the demo shows
 * (INR: UPI and cards; EUR: cards and crypto; KES: bank transfer and mobile money). Absent: INR.
 */
export const DEMO_CURRENCIES = ['INR', 'EUR', 'KES'] as const;
export const DemoPaymentRequest = lazySchema(() => z.object({ currency: z.enum(DEMO_CURRENCIES).optional() }).strict());
export type DemoPaymentRequest = z.infer<typeof DemoPaymentRequest>;

/** POST /demo/payments answer (demo merchant backend, test mode only). */
export const DemoPaymentResponse = lazySchema(() => z.object({ payment_id: z.string(), client_secret: z.string() }));
export type DemoPaymentResponse = z.infer<typeof DemoPaymentResponse>;

/** GET /health answer. */
export const HealthResponse = lazySchema(() => z.object({ status: z.literal('ok') }));
