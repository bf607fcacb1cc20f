/**
 * REST shapes of the payments endpoints (create, confirm, retrieve) and the payment object, as zod schemas with
 * same-named types. Request objects are strict: an unknown field is refused naming the field (api-conventions §4).
 * Field names, types and limits follow the interface spec's "Payment: request fields" table; object fields whose
 * inner shape the spec does not show are accepted as JSON objects under their Hyperswitch names
 * (see docs/open-points.md).
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { PublishableKeyQueryParam } from './key-query';
import { CustomerAcceptance } from './customer-acceptance';
import { CURRENCIES } from '../currency';
import { MERCHANT_PAYMENT_ID_PATTERN } from '../ids';
import { MSISDN_PATTERN } from '../msisdn';
import { NextAction, PaymentStatus } from '../payments';
import { COUNTRIES, PAYMENT_EXPERIENCES, PAYMENT_METHOD_TYPES, PAYMENT_METHODS } from './enums';
import { CardSummary } from './vault';

/** Limits of the spec's Limits table, plus Rail's own where the spec gives none (docs/open-points.md). */
export const PAYMENT_LIMITS = {
  paymentIdMax: 62,
  customerIdMax: 64,
  returnUrlMax: 2048,
  mandateIdMax: 64,
  referenceMax: 255,
  metadataKeys: 50,
  metadataKeyLength: 40,
  metadataValueLength: 500,
  /** The largest integer a JSON number carries exactly; int64 values above it are refused (open point). */
  maxAmount: Number.MAX_SAFE_INTEGER,
  /** int32 upper bound for session_expiry. */
  maxSessionExpiry: 2_147_483_647,
  vpaIdMax: 255,
  pspTokenMax: 128,
  /** A wallet's payment token (Google Pay tokenization_data.token, Apple Pay payment_data, a PayPal order id). */
  walletTokenMax: 8192,
} as const;

/** Default client_secret lifetime in seconds (spec: 15 minutes). */
export const DEFAULT_SESSION_EXPIRY_SECONDS = 900;

export const Currency = lazySchema(() => z.enum(CURRENCIES));
export const Country = lazySchema(() => z.enum(COUNTRIES));
export const PaymentMethod = lazySchema(() => z.enum(PAYMENT_METHODS));
export const PaymentMethodType = lazySchema(() => z.enum(PAYMENT_METHOD_TYPES));
export const PaymentExperience = lazySchema(() => z.enum(PAYMENT_EXPERIENCES));

export const CaptureMethod = lazySchema(() => z.enum(['automatic', 'manual', 'manual_multiple', 'scheduled', 'sequential_automatic']));
export type CaptureMethod = z.infer<typeof CaptureMethod>;

/**
 * The amount_to_capture rule of the request table, on the values a create or an update leaves: at most the amount, and
 * with a method that captures at authorization (automatic, the default, or sequential_automatic) the amount itself,
 * since the whole amount is captured then (Hyperswitch validate_amount_to_capture_and_capture_method). A message when
 * broken.
 */
export function amountToCaptureProblem(amountToCapture: number | null | undefined, amount: number, captureMethod: CaptureMethod | undefined): string | undefined {
  if (amountToCapture == null) return undefined;
  if (amountToCapture > amount) return 'amount_to_capture must be <= amount';
  const capturesAtAuthorization = captureMethod === undefined || captureMethod === 'automatic' || captureMethod === 'sequential_automatic';
  if (capturesAtAuthorization && amountToCapture !== amount) {
    return 'amount_to_capture must equal amount when capture_method is automatic or sequential_automatic (the whole amount is captured at authorization)';
  }
  return undefined;
}
export const AuthenticationType = lazySchema(() => z.enum(['three_ds', 'no_three_ds']));
export const FutureUsage = lazySchema(() => z.enum(['off_session', 'on_session']));
export type FutureUsage = z.infer<typeof FutureUsage>;
export const PaymentType = lazySchema(() => z.enum(['normal', 'new_mandate', 'setup_mandate', 'recurring_mandate', 'installment']));
export const ScaExemptionType = lazySchema(() => z.enum(['low_value', 'transaction_risk_analysis']));
export const ThreeDsMethodCompInd = lazySchema(() => z.enum(['Y', 'N', 'U']));
export const TaxStatus = lazySchema(() => z.enum(['taxable', 'exempt']));
export const MitCategory = lazySchema(() => z.enum(['installment', 'unscheduled', 'recurring', 'resubmission']));
export const Tokenization = lazySchema(() => z.enum(['skip_psp', 'tokenize_at_psp']));
export const RetryAction = lazySchema(() => z.enum(['manual_retry', 'requeue']));

/** Money in minor units: a non-negative integer that JSON carries exactly. */
export const MinorAmount = lazySchema(() => z.int().min(0).max(PAYMENT_LIMITS.maxAmount));

/**
 * A key named `__proto__` is refused, naming it: JSON.parse keeps such a member as an own property, but a zod record
 * skips it (assigning it to the object it builds would replace that object's prototype), so it was dropped without a
 * word. Checked on the input, before the record is built. Members of the values are kept as sent (z.unknown).
 */
function refuseProtoKey(message: string): (value: unknown, ctx: z.RefinementCtx) => unknown {
  return (value, ctx) => {
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message });
    }
    return value;
  };
}

/** A JSON object whose inner fields the spec does not show (key names other than `__proto__`). */
export const JsonObject = lazySchema(() => z.preprocess(refuseProtoKey('key names may not be "__proto__"'), z.record(z.string(), z.unknown())));
export type JsonObject = z.infer<typeof JsonObject>;

const MandateDate = lazySchema(() => z.iso.datetime({ offset: true }));

/**
 * Hyperswitch MandateAmountData: the most one charge under the mandate takes (a positive integer in minor units), in
 * which currency, and optionally from and until when; end_date after start_date.
 */
export const MandateAmountData = lazySchema(() =>
  z
    .strictObject({
      amount: z.int().min(1).max(PAYMENT_LIMITS.maxAmount),
      currency: Currency.unwrap(),
      start_date: MandateDate.unwrap().nullish(),
      end_date: MandateDate.unwrap().nullish(),
      metadata: JsonObject.unwrap().nullish(),
    })
    .superRefine((value, ctx) => {
      if (value.start_date != null && value.end_date != null && Date.parse(value.end_date) <= Date.parse(value.start_date)) {
        ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date must be after start_date' });
      }
    })
    .meta({ id: 'MandateAmountData' }));

/**
 * Hyperswitch MandateType, one of `{"single_use": {amount, currency, ...}}` (its amount data required) and
 * `{"multi_use": {amount, currency, ...} | null}`. An object with both optional members, so that an error names the
 * inner field (mandate_data.mandate_type.single_use.amount), and exactly one of them sent.
 */
export const MandateType = lazySchema(() =>
  z
    .strictObject({
      single_use: MandateAmountData.unwrap().optional(),
      multi_use: MandateAmountData.unwrap().nullable().optional(),
    })
    .superRefine((value, ctx) => {
      if (('single_use' in value) === ('multi_use' in value)) {
        ctx.addIssue({ code: 'custom', message: 'mandate_type must hold exactly one of single_use and multi_use' });
      }
    })
    .meta({ id: 'MandateType' }));

/**
 * A payment's mandate_data. Its customer_acceptance may instead come as the payment's customer_acceptance (sent at
 * confirm, which is where Hyperswitch's SDK sends it); mandate_type is checked and kept as sent (the spec: set by the
 * server; no rail of Rail applies its limits).
 */
export const MandateData = lazySchema(() =>
  z
    .strictObject({
      customer_acceptance: CustomerAcceptance.unwrap().optional(),
      mandate_type: MandateType.unwrap().nullish(),
    })
    .meta({ id: 'MandateData' }));
export type MandateData = z.infer<typeof MandateData>;

/** Merchant-chosen or generated payment id: [A-Za-z0-9_-], 1..62 characters. */
export const PaymentIdParam = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(PAYMENT_LIMITS.paymentIdMax)
    .regex(MERCHANT_PAYMENT_ID_PATTERN, 'payment_id may contain only A-Z, a-z, 0-9, _ and -'));

/**
 * metadata: up to 50 keys, key names up to 40 characters and not `__proto__`, values up to 500 characters. Values may
 * be any JSON value (as in Hyperswitch); a non-string value is measured by its JSON text.
 */
export const Metadata = lazySchema(() =>
  z.preprocess(refuseProtoKey('metadata key names may not be "__proto__"'), z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const keys = Object.keys(value);
    if (keys.length > PAYMENT_LIMITS.metadataKeys) {
      ctx.addIssue({ code: 'custom', message: `metadata may have at most ${PAYMENT_LIMITS.metadataKeys} keys` });
      return;
    }
    for (const key of keys) {
      if (key.length > PAYMENT_LIMITS.metadataKeyLength) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `metadata key names may have at most ${PAYMENT_LIMITS.metadataKeyLength} characters`,
        });
        continue;
      }
      const item = value[key];
      const length = typeof item === 'string' ? item.length : (JSON.stringify(item) ?? '').length;
      if (length > PAYMENT_LIMITS.metadataValueLength) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `metadata values may have at most ${PAYMENT_LIMITS.metadataValueLength} characters`,
        });
      }
    }
  })));
export type Metadata = z.infer<typeof Metadata>;

/** return_url: an absolute http(s) URL of at most 2048 characters (the runtime navigates to it). */
export const ReturnUrl = lazySchema(() =>
  z
    .string()
    .max(PAYMENT_LIMITS.returnUrlMax)
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'https:' || url.protocol === 'http:';
      } catch {
        return false;
      }
    }, 'return_url must be an absolute http or https URL'));

/** UPI payment_method_data (Hyperswitch's UpiData): exactly one of upi_collect, upi_intent, upi_qr. */
export const UpiData = lazySchema(() =>
  z.union([
    z.strictObject({ upi_collect: z.strictObject({ vpa_id: z.string().min(1).max(PAYMENT_LIMITS.vpaIdMax).nullish() }) }),
    z.strictObject({ upi_intent: z.strictObject({}) }),
    z.strictObject({ upi_qr: z.strictObject({}) }),
  ]));
export type UpiData = z.infer<typeof UpiData>;

/** Crypto payment_method_data (Hyperswitch's CryptoData): the coin to pay in and, optionally, its network. */
export const CryptoData = lazySchema(() =>
  z.strictObject({
    pay_currency: z.string().min(1).max(16).nullish(),
    network: z.string().min(1).max(32).nullish(),
  }));
export type CryptoData = z.infer<typeof CryptoData>;

/** Google Pay payment_method_data (Hyperswitch's GooglePayWalletData): what the Google Pay API hands the page. */
export const GooglePayWalletData = lazySchema(() =>
  z.strictObject({
    type: z.enum(['CARD']),
    description: z.string().max(PAYMENT_LIMITS.referenceMax),
    info: z.strictObject({
      card_network: z.string().min(1).max(32),
      /** The last four digits of the card (Google Pay's cardDetails); never the number. */
      card_details: z.string().regex(/^\d{4}$/, 'card_details must be the last four digits of the card'),
    }),
    tokenization_data: z.strictObject({
      type: z.enum(['PAYMENT_GATEWAY', 'DIRECT']),
      token: z.string().min(1).max(PAYMENT_LIMITS.walletTokenMax),
    }),
  }));

/** Apple Pay payment_method_data (Hyperswitch's ApplePayWalletData): the payment token Apple Pay hands the page. */
export const ApplePayWalletData = lazySchema(() =>
  z.strictObject({
    payment_data: z.string().min(1).max(PAYMENT_LIMITS.walletTokenMax),
    payment_method: z.strictObject({
      /** Apple Pay's display name of the card, e.g. "Visa 4242". */
      display_name: z.string().min(1).max(64),
      network: z.string().min(1).max(32),
      type: z.string().min(1).max(16),
    }),
    transaction_identifier: z.string().min(1).max(PAYMENT_LIMITS.referenceMax),
  }));

/** PayPal through its SDK (Hyperswitch's PayPalWalletData `paypal_sdk`): the order id post_session_tokens opened. */
export const PaypalSdkData = lazySchema(() =>
  z.strictObject({ token: z.string().min(1).max(PAYMENT_LIMITS.walletTokenMax) }));

/**
 * Wallet payment_method_data (Hyperswitch's WalletData): exactly one of google_pay, apple_pay, paypal_sdk. Other
 * Hyperswitch wallet variants are refused here (ERR_2004): no rail of Rail takes them.
 */
export const WalletData = lazySchema(() =>
  z
    .strictObject({
      google_pay: GooglePayWalletData.unwrap().optional(),
      apple_pay: ApplePayWalletData.unwrap().optional(),
      paypal_sdk: PaypalSdkData.unwrap().optional(),
    })
    .superRefine((value, ctx) => {
      if (Object.values(value).filter((variant) => variant !== undefined).length !== 1) {
        ctx.addIssue({ code: 'custom', message: 'wallet must hold exactly one of google_pay, apple_pay, paypal_sdk' });
      }
    }));
export type WalletData = z.infer<typeof WalletData>;

/** The payment_method_type each wallet variant of payment_method_data means (Hyperswitch's pairing). */
export const WALLET_VARIANT_TYPES = { google_pay: 'google_pay', apple_pay: 'apple_pay', paypal_sdk: 'paypal' } as const satisfies Record<
  keyof WalletData,
  z.infer<typeof PaymentMethodType>
>;

/**
 * What a payment shows of the wallet that paid (Hyperswitch's WalletAdditionalDataForCard for the card wallets):
 * the card's last four digits, network and type as the wallet reported them; never the wallet's token.
 */
export const WalletCardSummary = lazySchema(() =>
  z.object({
    last4: z.string().nullable(),
    card_network: z.string().nullable(),
    type: z.string().nullable(),
  }));
export const WalletSummary = lazySchema(() =>
  z
    .object({
      google_pay: WalletCardSummary.unwrap().optional(),
      apple_pay: WalletCardSummary.unwrap().optional(),
      paypal: z.object({}).optional(),
    })
    .meta({ id: 'WalletSummary' }));
export type WalletSummary = z.infer<typeof WalletSummary>;

/**
 * Mobile money payment_method_data: `momo` carries the payer's number (the provider sends its approval prompt there).
 * Other mobile_payment types (Hyperswitch's direct_carrier_billing) stay free-form JSON and are refused at confirm
 * when no rail of the account takes them.
 */
export const MobilePaymentData = lazySchema(() =>
  z.looseObject({
    momo: z.strictObject({ msisdn: z.string().regex(MSISDN_PATTERN, 'msisdn must be 8 to 15 digits with an optional leading +') }).optional(),
  }));
export type MobilePaymentData = z.infer<typeof MobilePaymentData>;

/**
 * payment_method_data: one variant key (Hyperswitch names) plus an optional billing object. Only the UPI, crypto, mobile
 * money, wallet and psp_token variants have a shape Rail checks today; the other variants are accepted as JSON objects and are
 * refused at confirm when no rail of the account takes them. Raw card numbers never get this far (ERR_2029).
 */
export const PaymentMethodData = lazySchema(() =>
  z
    .strictObject({
      upi: UpiData.unwrap().optional(),
      psp_token: z.string().min(1).max(PAYMENT_LIMITS.pspTokenMax).optional(),
      card: JsonObject.unwrap().optional(),
      card_redirect: JsonObject.unwrap().optional(),
      wallet: WalletData.unwrap().optional(),
      pay_later: JsonObject.unwrap().optional(),
      bank_redirect: JsonObject.unwrap().optional(),
      bank_debit: JsonObject.unwrap().optional(),
      bank_transfer: JsonObject.unwrap().optional(),
      real_time_payment: JsonObject.unwrap().optional(),
      crypto: CryptoData.unwrap().optional(),
      mandate_payment: JsonObject.unwrap().optional(),
      reward: JsonObject.unwrap().optional(),
      voucher: JsonObject.unwrap().optional(),
      gift_card: JsonObject.unwrap().optional(),
      card_token: JsonObject.unwrap().optional(),
      open_banking: JsonObject.unwrap().optional(),
      mobile_payment: MobilePaymentData.unwrap().optional(),
      network_token: JsonObject.unwrap().optional(),
      billing: JsonObject.unwrap().optional(),
    })
    .superRefine((value, ctx) => {
      const variants = Object.keys(value).filter((key) => key !== 'billing' && value[key as keyof typeof value] !== undefined);
      if (variants.length !== 1) {
        ctx.addIssue({ code: 'custom', message: 'payment_method_data must hold exactly one payment method variant' });
      }
    })
    .meta({ id: 'PaymentMethodData' }));
export type PaymentMethodData = z.infer<typeof PaymentMethodData>;

/** One order line (Hyperswitch OrderDetailsWithAmount): amount is per unit, in minor units. */
export const OrderDetail = lazySchema(() =>
  z.looseObject({
    product_name: z.string().min(1).max(PAYMENT_LIMITS.referenceMax),
    quantity: z.int().min(1).max(PAYMENT_LIMITS.maxAmount),
    amount: MinorAmount.unwrap(),
  }));

/** Effective length of a statement descriptor (spec: name and concatenated name + suffix at most 22 characters). */
export const STATEMENT_DESCRIPTOR_MAX = 22;

/**
 * The spec's statement descriptor rules: statement_descriptor_name has at least one letter and at most 22
 * characters; name and suffix concatenated have at most 22 characters. Returns the first rule broken, if any.
 */
export function statementDescriptorProblem(
  name: string | null | undefined,
  suffix: string | null | undefined,
): { field: 'statement_descriptor_name' | 'statement_descriptor_suffix'; message: string } | undefined {
  if (name != null) {
    if (!/\p{L}/u.test(name)) return { field: 'statement_descriptor_name', message: 'statement_descriptor_name needs at least one letter' };
    if (name.length > STATEMENT_DESCRIPTOR_MAX) {
      return { field: 'statement_descriptor_name', message: `statement_descriptor_name may have at most ${STATEMENT_DESCRIPTOR_MAX} characters` };
    }
  }
  if (suffix != null && (name ?? '').length + suffix.length > STATEMENT_DESCRIPTOR_MAX) {
    return {
      field: 'statement_descriptor_suffix',
      message: `statement_descriptor_name and statement_descriptor_suffix together may have at most ${STATEMENT_DESCRIPTOR_MAX} characters`,
    };
  }
  return undefined;
}

/** Sum of order_details lines (amount per unit x quantity), in minor units. */
export function orderDetailsTotal(lines: readonly { amount: number; quantity: number }[]): number {
  return lines.reduce((sum, line) => sum + line.amount * line.quantity, 0);
}

/** Fields shared by create and confirm (the spec's request table). All optional here. */
/**
 * The request table's fields that create, confirm and update share (each takes them whole or optional), made once, by
 * the first of those schemas to be built (lazySchema).
 */
function buildSharedPaymentFields() {
  return {
    amount: MinorAmount.unwrap(),
    currency: Currency.unwrap(),
    order_tax_amount: MinorAmount.unwrap().nullish(),
    amount_to_capture: MinorAmount.unwrap().nullish(),
    shipping_cost: MinorAmount.unwrap().nullish(),
    payment_id: PaymentIdParam.unwrap().nullish(),
    connector: z.array(z.string().max(PAYMENT_LIMITS.referenceMax)).nullish(),
    capture_method: CaptureMethod.unwrap(),
    authentication_type: AuthenticationType.unwrap(),
    confirm: z.boolean(),
    customer_id: z.string().min(1).max(PAYMENT_LIMITS.customerIdMax),
    off_session: z.boolean(),
    description: z.string(),
    return_url: ReturnUrl.unwrap(),
    setup_future_usage: FutureUsage.unwrap(),
    payment_method_data: PaymentMethodData.unwrap(),
    payment_method: PaymentMethod.unwrap(),
    payment_method_type: PaymentMethodType.unwrap(),
    payment_token: z.string().min(1),
    payment_experience: PaymentExperience.unwrap(),
    statement_descriptor_name: z.string().max(PAYMENT_LIMITS.referenceMax),
    statement_descriptor_suffix: z.string().max(PAYMENT_LIMITS.referenceMax),
    customer_acceptance: CustomerAcceptance.unwrap(),
    mandate_id: z.string().min(1).max(PAYMENT_LIMITS.mandateIdMax),
    allowed_payment_method_types: z.array(PaymentMethodType.unwrap()),
    metadata: Metadata.unwrap(),
    payment_link: z.boolean(),
    payment_link_config_id: z.string(),
    payment_type: PaymentType.unwrap(),
    request_incremental_authorization: z.boolean(),
    session_expiry: z.int().min(0).max(PAYMENT_LIMITS.maxSessionExpiry),
    frm_metadata: JsonObject.unwrap(),
    request_external_three_ds_authentication: z.boolean(),
    request_extended_authorization: z.boolean(),
    merchant_order_reference_id: z.string().max(PAYMENT_LIMITS.referenceMax),
    skip_external_tax_calculation: z.boolean(),
    psd2_sca_exemption_type: ScaExemptionType.unwrap(),
    force_3ds_challenge: z.boolean(),
    threeds_method_comp_ind: ThreeDsMethodCompInd.unwrap(),
    is_iframe_redirection_enabled: z.boolean(),
    all_keys_required: z.boolean(),
    tax_status: TaxStatus.unwrap(),
    discount_amount: MinorAmount.unwrap(),
    shipping_amount_tax: MinorAmount.unwrap(),
    duty_amount: MinorAmount.unwrap(),
    order_date: z.iso.datetime({ offset: true }),
    enable_partial_authorization: z.boolean(),
    is_stored_credential: z.boolean(),
    mit_category: MitCategory.unwrap(),
    tokenization: Tokenization.unwrap(),
    // Object fields whose names the spec does not show, under their Hyperswitch names (docs/open-points.md).
    customer: JsonObject.unwrap(),
    billing: JsonObject.unwrap(),
    shipping: JsonObject.unwrap(),
    order_details: z.array(OrderDetail.unwrap()),
    mandate_data: MandateData.unwrap(),
    browser_info: JsonObject.unwrap(),
    merchant_connector_details: JsonObject.unwrap(),
    payment_link_config: JsonObject.unwrap(),
    surcharge_details: JsonObject.unwrap(),
    connector_metadata: JsonObject.unwrap(),
    feature_metadata: JsonObject.unwrap(),
    recurring_details: JsonObject.unwrap(),
    payment_channel: z.string(),
    billing_descriptor: JsonObject.unwrap(),
    partner_merchant_identifier_details: JsonObject.unwrap(),
    installment_options: z.array(JsonObject.unwrap()),
    installment_data: JsonObject.unwrap(),
    three_ds_data: JsonObject.unwrap(),
  };
}
type SharedPaymentFields = ReturnType<typeof buildSharedPaymentFields>;
let sharedFields: SharedPaymentFields | undefined;
function sharedPaymentFields(): SharedPaymentFields {
  sharedFields ??= buildSharedPaymentFields();
  return sharedFields;
}

export type SharedField = keyof SharedPaymentFields;
export function optionalShared<K extends SharedField>(keys: readonly K[]) {
  const fields = sharedPaymentFields();
  const shape = {} as { [P in K]: z.ZodOptional<SharedPaymentFields[P]> };
  for (const key of keys) {
    (shape as Record<string, z.ZodType>)[key] = fields[key].optional();
  }
  return shape;
}
/** The names of the shared fields. */
export function sharedKeys(): SharedField[] {
  return Object.keys(sharedPaymentFields()) as SharedField[];
}
/** Every shared field but amount and currency, which create requires. */
const isOptionalOnCreate = (key: SharedField): key is Exclude<SharedField, 'amount' | 'currency'> => key !== 'amount' && key !== 'currency';

/** POST /payments body. amount and currency are required; create-only fields included. */
export const CreatePaymentRequest = lazySchema(() =>
  z
    .strictObject({
      ...optionalShared(sharedKeys().filter(isOptionalOnCreate)),
      amount: sharedPaymentFields().amount,
      currency: sharedPaymentFields().currency,
      business_country: Country.unwrap().optional(),
      business_label: z.string().optional(),
      profile_id: z.string().min(1).max(64).optional(),
      enable_overcapture: z.boolean().optional(),
    })
    .superRefine((body, ctx) => {
      if (body.request_extended_authorization === true && body.capture_method !== 'manual' && body.capture_method !== 'manual_multiple') {
        ctx.addIssue({
          code: 'custom',
          path: ['request_extended_authorization'],
          message: 'request_extended_authorization needs capture_method manual or manual_multiple',
        });
      }
      const toCapture = amountToCaptureProblem(body.amount_to_capture, body.amount, body.capture_method);
      if (toCapture !== undefined) ctx.addIssue({ code: 'custom', path: ['amount_to_capture'], message: toCapture });
      const descriptor = statementDescriptorProblem(body.statement_descriptor_name, body.statement_descriptor_suffix);
      if (descriptor !== undefined) ctx.addIssue({ code: 'custom', path: [descriptor.field], message: descriptor.message });
      if (body.order_details !== undefined) {
        const total = orderDetailsTotal(body.order_details);
        if (total !== body.amount) {
          ctx.addIssue({
            code: 'custom',
            path: ['order_details'],
            message: 'the sum of order_details amount x quantity must equal amount',
          });
        }
      }
    })
    .meta({ id: 'CreatePaymentRequest' }));
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;

/** POST /payments/{payment_id}/confirm body: every field optional; client_secret, retry_action confirm-only. */
export const ConfirmPaymentRequest = lazySchema(() =>
  z
    .strictObject({
      ...optionalShared(sharedKeys()),
      client_secret: z.string().min(1).max(256).optional(),
      retry_action: RetryAction.unwrap().optional(),
    })
    .meta({ id: 'ConfirmPaymentRequest' }));
export type ConfirmPaymentRequest = z.infer<typeof ConfirmPaymentRequest>;

/** GET /payments/{payment_id} query. */
export const RetrievePaymentQuery = z.strictObject({
  get client_secret() { return z.string().min(1).max(256).optional(); },
  get key() { return PublishableKeyQueryParam.unwrap(); },
  get force_sync() { return z.enum(['true', 'false']).optional(); },
  get expand_attempts() { return z.enum(['true', 'false']).optional(); },
  get expand_captures() { return z.enum(['true', 'false']).optional(); },
});
export type RetrievePaymentQuery = z.infer<typeof RetrievePaymentQuery>;

/** The payment's `customer` object (Hyperswitch CustomerDetailsResponse). */
export const PaymentCustomerDetails = lazySchema(() =>
  z
    .object({
      id: z.string().nullable(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      phone_country_code: z.string().nullable(),
    })
    .meta({ id: 'PaymentCustomerDetails' }));
export type PaymentCustomerDetails = z.infer<typeof PaymentCustomerDetails>;

/**
 * One confirm of a payment (Hyperswitch's AttemptResponse, a subset): returned in `attempts` when retrieve is
 * asked for expand_attempts=true. Statuses are Hyperswitch AttemptStatus names.
 */
export const PaymentAttempt = lazySchema(() =>
  z
    .object({
      attempt_id: z.string(),
      status: z.enum(['pending', 'authentication_pending', 'authorized', 'charged', 'failure', 'voided']),
      amount: z.int(),
      currency: Currency.unwrap(),
      connector: z.string().nullable(),
      payment_method: PaymentMethod.unwrap().nullable(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
      capture_method: CaptureMethod.unwrap(),
      reference_id: z.string().nullable(),
      error_code: z.string().nullable(),
      error_message: z.string().nullable(),
      error_reason: z.string().nullable(),
      cancellation_reason: z.string().nullable(),
      created_at: z.string(),
      modified_at: z.string(),
    })
    .meta({ id: 'PaymentAttempt' }));
export type PaymentAttempt = z.infer<typeof PaymentAttempt>;

/** One capture (Hyperswitch's CaptureResponse): returned in `captures` with expand_captures=true. */
export const PaymentCapture = lazySchema(() =>
  z
    .object({
      capture_id: z.string(),
      status: z.enum(['started', 'charged', 'pending', 'failed']),
      amount: z.int(),
      currency: Currency.unwrap(),
      connector: z.string().nullable(),
      authorized_attempt_id: z.string(),
      connector_capture_id: z.string().nullable(),
      capture_sequence: z.int(),
      error_message: z.string().nullable(),
      error_code: z.string().nullable(),
      error_reason: z.string().nullable(),
      reference_id: z.string().nullable(),
    })
    .meta({ id: 'PaymentCapture' }));
export type PaymentCapture = z.infer<typeof PaymentCapture>;


/** The payment object (the spec's "Payment: response fields"). */
export const PaymentResponse = lazySchema(() =>
  z
    .object({
      payment_id: z.string(),
      status: PaymentStatus.unwrap(),
      amount: z.int(),
      net_amount: z.int(),
      shipping_cost: z.int().nullable(),
      amount_capturable: z.int(),
      amount_received: z.int().nullable(),
      client_secret: z.string(),
      created: z.string(),
      modified_at: z.string(),
      expires_on: z.string(),
      currency: Currency.unwrap(),
      customer_id: z.string().nullable(),
      customer: PaymentCustomerDetails.unwrap().nullable(),
      description: z.string().nullable(),
      mandate_id: z.string().nullable(),
      setup_future_usage: FutureUsage.unwrap().nullable(),
      capture_method: CaptureMethod.unwrap(),
      payment_method: PaymentMethod.unwrap().nullable(),
      payment_method_type: PaymentMethodType.unwrap().nullable(),
      return_url: z.string().nullable(),
      next_action: NextAction.unwrap().nullable(),
      error_code: z.string().nullable(),
      error_message: z.string().nullable(),
      error_reason: z.string().nullable(),
      metadata: JsonObject.unwrap().nullable(),
      reference_id: z.string().nullable(),
      payment_link: JsonObject.unwrap().nullable(),
      payment_method_id: z.string().nullable(),
      merchant_order_reference_id: z.string().nullable(),
      order_tax_amount: z.int().nullable(),
      profile_id: z.string(),
      connector: z.string().nullable(),
      /**
       * A display summary of the instrument (cards: last4, network, expiry, never the number; wallets: the card the
       * wallet reported, never its token) and its billing address.
       */
      payment_method_data: z.object({ card: CardSummary.unwrap().optional(), wallet: WalletSummary.unwrap().optional(), billing: JsonObject.unwrap().optional() }).nullable(),
      /** The addresses as sent (Hyperswitch clients read back what they sent). */
      billing: JsonObject.unwrap().nullable(),
      shipping: JsonObject.unwrap().nullable(),
      cancellation_reason: z.string().nullable(),
      /** Present only when retrieve is called with expand_attempts=true. */
      attempts: z.array(PaymentAttempt.unwrap()).optional(),
      /** Present only when retrieve is called with expand_captures=true. */
      captures: z.array(PaymentCapture.unwrap()).optional(),
      /** On retrieve, once the payment has any: its latest refunds (at most EMBEDDED_REFUNDS_LIMIT, 100), oldest first (Hyperswitch PaymentsResponse.refunds). */
      refunds: z.array(z.record(z.string(), z.unknown())).optional(),
    })
    .meta({ id: 'Payment' }));
export type PaymentResponse = z.infer<typeof PaymentResponse>;
