/**
 * REST shapes of the stored payment methods (the spec's "Stored payment method" resource and its endpoint table),
 * with Hyperswitch v1 names (PaymentMethodCreate, PaymentMethodResponse, CustomerPaymentMethod,
 * PaymentMethodDeleteResponse, CustomerDefaultPaymentMethodResponse). Request objects are strict (api-conventions §4).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PublishableKeyQueryParam } from './key-query';
import { JsonObject, Metadata, PAYMENT_LIMITS, PaymentMethod, PaymentMethodType } from './payments';

export const PAYMENT_METHOD_LIMITS = {
  idMax: 64,
  textMax: 255,
  clientSecretMax: 128,
} as const;

export const PaymentMethodIdParam = lazySchema(() => z.string().min(1).max(PAYMENT_METHOD_LIMITS.idMax));

const text = lazySchema(() => z.string().max(PAYMENT_METHOD_LIMITS.textMax));
const ExpMonth = lazySchema(() => z.string().regex(/^(0?[1-9]|1[0-2])$/, 'card_exp_month is a month, 1 to 12'));
const ExpYear = lazySchema(() => z.string().regex(/^(\d{2}|\d{4})$/, 'card_exp_year has two or four digits'));

/**
 * The card block of create and update (Hyperswitch CardDetail without the number: a raw card number is refused in
 * every mode with ERR_2029 before this schema runs, spec "not live today" 7). card_number is declared only so that
 * the core can answer ERR_2029 instead of "unknown field".
 */
export const StoredCardInput = lazySchema(() =>
  z.strictObject({
    card_number: z.union([z.string(), z.number()]).optional(),
    card_exp_month: ExpMonth.unwrap().optional(),
    card_exp_year: ExpYear.unwrap().optional(),
    card_holder_name: text.unwrap().nullish(),
    nick_name: text.unwrap().nullish(),
    card_network: text.unwrap().nullish(),
    card_issuer: text.unwrap().nullish(),
    card_issuing_country: text.unwrap().nullish(),
    card_type: text.unwrap().nullish(),
  }));
export type StoredCardInput = z.infer<typeof StoredCardInput>;

export const PAYMENT_METHOD_ISSUER_CODES = [
  'jp_hdfc',
  'jp_icici',
  'jp_googlepay',
  'jp_applepay',
  'jp_phonepay',
  'jp_wechat',
  'jp_sofort',
  'jp_giropay',
  'jp_sepa',
  'jp_bacs',
] as const;

/** POST /payment_methods body (the spec's Create row). */
export const CreatePaymentMethodRequest = lazySchema(() =>
  z
    .strictObject({
      payment_method: PaymentMethod.unwrap(),
      payment_method_type: PaymentMethodType.unwrap().optional(),
      payment_method_issuer: text.unwrap().optional(),
      payment_method_issuer_code: z.enum(PAYMENT_METHOD_ISSUER_CODES).optional(),
      card: StoredCardInput.unwrap().optional(),
      metadata: Metadata.unwrap().optional(),
      customer_id: z.string().min(1).max(PAYMENT_LIMITS.customerIdMax).optional(),
      card_network: text.unwrap().optional(),
      bank_transfer: JsonObject.unwrap().optional(),
      client_secret: z.string().max(PAYMENT_METHOD_LIMITS.clientSecretMax).optional(),
    })
    .meta({ id: 'CreatePaymentMethodRequest' }));
export type CreatePaymentMethodRequest = z.infer<typeof CreatePaymentMethodRequest>;

/** POST /payment_methods/{id}/update body: partial; the number never changes. */
export const UpdatePaymentMethodRequest = lazySchema(() =>
  z
    .strictObject({
      card: StoredCardInput.unwrap().optional(),
      wallet: JsonObject.unwrap().optional(),
      client_secret: z.string().max(PAYMENT_METHOD_LIMITS.clientSecretMax).optional(),
    })
    .meta({ id: 'UpdatePaymentMethodRequest' }));
export type UpdatePaymentMethodRequest = z.infer<typeof UpdatePaymentMethodRequest>;

/** The card of a stored method as shown (Hyperswitch CardDetailFromLocker; never the number). */
export const StoredCard = lazySchema(() =>
  z
    .object({
      scheme: z.string().nullable(),
      last4_digits: z.string().nullable(),
      expiry_month: z.string().nullable(),
      expiry_year: z.string().nullable(),
      card_holder_name: z.string().nullable(),
      nick_name: z.string().nullable(),
      card_network: z.string().nullable(),
      card_issuer: z.string().nullable(),
      issuer_country: z.string().nullable(),
      card_type: z.string().nullable(),
      saved_to_locker: z.boolean(),
    })
    .meta({ id: 'StoredCard' }));
export type StoredCard = z.infer<typeof StoredCard>;

/** The stored payment method (the spec's resource). */
export const PaymentMethodResponse = lazySchema(() =>
  z
    .object({
      merchant_id: z.string(),
      customer_id: z.string().nullable(),
      payment_method_id: z.string(),
      payment_method: PaymentMethod.unwrap(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
      card: StoredCard.unwrap().nullable(),
      recurring_enabled: z.boolean(),
      installment_payment_enabled: z.boolean(),
      payment_experience: z.array(z.string()).nullable(),
      metadata: JsonObject.unwrap().nullable(),
      created: z.string(),
      bank_transfer: JsonObject.unwrap().nullable(),
      wallet: JsonObject.unwrap().nullable(),
      last_used_at: z.string().nullable(),
      client_secret: z.string().nullable(),
    })
    .meta({ id: 'PaymentMethodResponse' }));
export type PaymentMethodResponse = z.infer<typeof PaymentMethodResponse>;

/** One entry of a customer's list (Hyperswitch CustomerPaymentMethod). */
export const CustomerPaymentMethod = lazySchema(() =>
  z
    .object({
      payment_token: z.string(),
      payment_method_id: z.string(),
      customer_id: z.string(),
      payment_method: PaymentMethod.unwrap(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
      payment_method_issuer: z.string().nullable(),
      recurring_enabled: z.boolean(),
      installment_payment_enabled: z.boolean(),
      payment_experience: z.array(z.string()).nullable(),
      card: StoredCard.unwrap().nullable(),
      metadata: JsonObject.unwrap().nullable(),
      created: z.string(),
      requires_cvv: z.boolean(),
      last_used_at: z.string().nullable(),
      default_payment_method_set: z.boolean(),
    })
    .meta({ id: 'CustomerPaymentMethod' }));
export type CustomerPaymentMethod = z.infer<typeof CustomerPaymentMethod>;

export const CustomerPaymentMethodsResponse = lazySchema(() =>
  z
    .object({ customer_payment_methods: z.array(CustomerPaymentMethod.unwrap()), is_guest_customer: z.boolean() })
    .meta({ id: 'CustomerPaymentMethodsResponse' }));
export type CustomerPaymentMethodsResponse = z.infer<typeof CustomerPaymentMethodsResponse>;

/**
 * Query of both customer lists: the merchant list's query (spec). The filters narrow the saved methods; client_secret
 * names the payment on the publishable-key list.
 */
export const CustomerPaymentMethodsQuery = z.strictObject({
  get client_secret() { return z.string().max(PAYMENT_METHOD_LIMITS.clientSecretMax).optional(); },
  get accepted_countries() { return z.union([z.string(), z.array(z.string())]).optional(); },
  get accepted_currencies() { return z.union([z.string(), z.array(z.string())]).optional(); },
  get amount() { return z.coerce.number().int().min(0).optional(); },
  get recurring_enabled() { return z.enum(['true', 'false']).optional(); },
  get installment_payment_enabled() { return z.enum(['true', 'false']).optional(); },
  get limit() { return z.coerce.number().int().min(1).max(100).optional(); },
  get card_networks() { return z.union([z.string(), z.array(z.string())]).optional(); },
});
export type CustomerPaymentMethodsQuery = z.infer<typeof CustomerPaymentMethodsQuery>;

/** Query of GET /customers/payment_methods (publishable key): the list's query and the key a browser GET may carry. */
export const PublishableCustomerPaymentMethodsQuery = CustomerPaymentMethodsQuery.extend({ get key() { return PublishableKeyQueryParam.unwrap(); } });
export type PublishableCustomerPaymentMethodsQuery = z.infer<typeof PublishableCustomerPaymentMethodsQuery>;

export const PaymentMethodDeleteResponse = lazySchema(() =>
  z
    .object({ payment_method_id: z.string(), deleted: z.boolean() })
    .meta({ id: 'PaymentMethodDeleteResponse' }));
export type PaymentMethodDeleteResponse = z.infer<typeof PaymentMethodDeleteResponse>;

export const DefaultPaymentMethodResponse = lazySchema(() =>
  z
    .object({
      default_payment_method_id: z.string(),
      customer_id: z.string(),
      payment_method: PaymentMethod.unwrap(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
    })
    .meta({ id: 'DefaultPaymentMethodResponse' }));
export type DefaultPaymentMethodResponse = z.infer<typeof DefaultPaymentMethodResponse>;
