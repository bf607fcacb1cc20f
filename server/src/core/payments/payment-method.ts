/**
 * Which payment method and type a payment_method_data variant means, and which rail of the account takes it.
 */
import type { Currency } from '../../../../protocol/currency';
import type { Mode } from '../../../../protocol/ids';
import { WALLET_VARIANT_TYPES, type CaptureMethod, type PaymentMethodData } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { RailAdapter, RailRegistry } from '../../rails/rail-adapter';
import { provisionedAdapter, supportedCaptureMethods } from '../accounts/account-settings';
import type { AccountSettings, RailName, RailSettings } from '../../kernel/account-settings-types';
import { ApiError } from '../shared/errors';

/** payment_method_data variant key -> PaymentMethod (Hyperswitch's pairing). */
const METHOD_OF_VARIANT: Record<string, PaymentMethod> = {
  upi: 'upi',
  psp_token: 'card',
  card: 'card',
  card_token: 'card',
  card_redirect: 'card_redirect',
  wallet: 'wallet',
  pay_later: 'pay_later',
  bank_redirect: 'bank_redirect',
  bank_debit: 'bank_debit',
  bank_transfer: 'bank_transfer',
  real_time_payment: 'real_time_payment',
  crypto: 'crypto',
  reward: 'reward',
  voucher: 'voucher',
  gift_card: 'gift_card',
  open_banking: 'open_banking',
  mobile_payment: 'mobile_payment',
  network_token: 'network_token',
};

/** PaymentMethod -> the rail that carries it. */
const RAIL_OF_METHOD: Partial<Record<PaymentMethod, RailName>> = {
  upi: 'upi',
  bank_transfer: 'bank_transfer',
  mobile_payment: 'bank_transfer',
  crypto: 'crypto',
  card: 'card',
  // Card wallets (Google Pay, Apple Pay) and PayPal go to the card acquirer, which offers them (session tokens).
  wallet: 'card',
};

export interface ResolvedMethod {
  paymentMethod: PaymentMethod;
  paymentMethodType: PaymentMethodType | null;
}

/**
 * Derives payment_method (and, for UPI and wallets, payment_method_type) from payment_method_data and checks that explicit
 * payment_method / payment_method_type agree with it (ERR_2003 otherwise).
 */
export function resolvePaymentMethod(
  data: PaymentMethodData,
  explicitMethod: PaymentMethod | null | undefined,
  explicitType: PaymentMethodType | null | undefined,
): ResolvedMethod {
  const variant = Object.keys(data).find((key) => key !== 'billing' && data[key as keyof PaymentMethodData] !== undefined);
  const derived = variant === undefined ? undefined : METHOD_OF_VARIANT[variant];
  if (derived === undefined) {
    throw new ApiError('ERR_2003', 'payment_method_data holds no supported payment method variant.', {
      fieldName: 'payment_method_data',
    });
  }
  if (explicitMethod != null && explicitMethod !== derived) {
    throw new ApiError('ERR_2003', `payment_method ${explicitMethod} does not match payment_method_data (${derived}).`, {
      fieldName: 'payment_method',
    });
  }
  let derivedType: PaymentMethodType | null = null;
  if (data.upi) {
    derivedType = 'upi_collect' in data.upi ? 'upi_collect' : 'upi_intent' in data.upi ? 'upi_intent' : 'upi_qr';
  }
  if (data.wallet) {
    const wallet = data.wallet;
    const walletVariant = (Object.keys(WALLET_VARIANT_TYPES) as (keyof typeof WALLET_VARIANT_TYPES)[]).find((key) => wallet[key] !== undefined);
    if (walletVariant !== undefined) derivedType = WALLET_VARIANT_TYPES[walletVariant];
  }
  if (explicitType != null && derivedType !== null && explicitType !== derivedType) {
    throw new ApiError('ERR_2003', `payment_method_type ${explicitType} does not match payment_method_data (${derivedType}).`, {
      fieldName: 'payment_method_type',
    });
  }
  return { paymentMethod: derived, paymentMethodType: derivedType ?? explicitType ?? null };
}

export interface RailChoice {
  settings: RailSettings;
  adapter: RailAdapter;
  paymentMethodType: PaymentMethodType;
}

/**
 * Picks the rail for a payment method on this account, mode and currency, or explains why none can take it:
 * ERR_4004 (no rail of the account takes it), ERR_3010 (the rail needs provisioning), ERR_4012 (capture method).
 */
export function chooseRail(
  settings: AccountSettings,
  registry: RailRegistry,
  mode: Mode,
  currency: Currency,
  method: ResolvedMethod,
  captureMethod: CaptureMethod,
  allowedTypes: readonly PaymentMethodType[] | undefined,
): RailChoice {
  const railName = RAIL_OF_METHOD[method.paymentMethod];
  const rail = settings.rails.find((candidate) => candidate.rail === railName);
  if (railName === undefined || rail === undefined || !rail.modes.includes(mode)) {
    throw new ApiError('ERR_4004', `Payment method ${method.paymentMethod} is not enabled for this account.`, {
      fieldName: 'payment_method_data',
    });
  }
  if (!rail.currencies.includes(currency)) {
    throw new ApiError('ERR_4004', `Payment method ${method.paymentMethod} does not take ${currency} on this account.`, {
      fieldName: 'payment_method_data',
    });
  }
  const adapter = provisionedAdapter(rail, registry, mode);
  if (adapter === undefined) {
    throw new ApiError('ERR_3010', `The ${rail.rail} rail is not provisioned for ${mode} payments on this account yet.`);
  }
  const offered = adapter.paymentMethodTypes(currency).filter((entry) => entry.paymentMethod === method.paymentMethod);
  const chosen = offered.find((entry) => method.paymentMethodType === null || entry.paymentMethodType === method.paymentMethodType);
  if (chosen === undefined) {
    throw new ApiError('ERR_4004', `Payment method type ${method.paymentMethodType ?? method.paymentMethod} is not available for this payment.`, {
      fieldName: 'payment_method_type',
    });
  }
  if (allowedTypes !== undefined && !allowedTypes.includes(chosen.paymentMethodType)) {
    throw new ApiError('ERR_4004', `Payment method type ${chosen.paymentMethodType} is not in allowed_payment_method_types.`, {
      fieldName: 'payment_method_type',
    });
  }
  if (!supportedCaptureMethods(rail.capabilities[mode]).includes(captureMethod)) {
    throw new ApiError('ERR_4012', `capture_method ${captureMethod} is not supported: the ${rail.rail} rail captures automatically.`, {
      fieldName: 'capture_method',
    });
  }
  return { settings: rail, adapter, paymentMethodType: chosen.paymentMethodType };
}
