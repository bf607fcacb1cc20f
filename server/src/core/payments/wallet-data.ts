import type { PaymentMethodData, WalletData } from '../../../../protocol/api/payments';

/** What a payment keeps in place of a wallet's token once confirm has handed the token to the rail. */
export const CONSUMED_WALLET_TOKEN = '[consumed at confirm]';

/**
 * payment_method_data as a confirmed payment keeps it: a wallet's token (Google Pay tokenization_data.token, Apple
 * Pay payment_data, PayPal's order id) goes to the rail once and is not stored, as a card keeps only its summary
 * once its psp_token is consumed. What the payment shows of the wallet (payment-view.ts) is left as sent.
 */
export function withoutWalletToken(data: PaymentMethodData): PaymentMethodData {
  const wallet = data.wallet;
  if (wallet === undefined) return data;
  const kept: WalletData = {};
  if (wallet.google_pay !== undefined) {
    kept.google_pay = { ...wallet.google_pay, tokenization_data: { ...wallet.google_pay.tokenization_data, token: CONSUMED_WALLET_TOKEN } };
  }
  if (wallet.apple_pay !== undefined) kept.apple_pay = { ...wallet.apple_pay, payment_data: CONSUMED_WALLET_TOKEN };
  if (wallet.paypal_sdk !== undefined) kept.paypal_sdk = { token: CONSUMED_WALLET_TOKEN };
  return { ...data, wallet: kept };
}

/**
 * Where payment_method_data carries a wallet's token (the field a refusal names), or undefined when it carries none.
 * Only a request that confirms takes one: it goes to the rail once and is never stored (withoutWalletToken).
 */
export function walletTokenField(data: PaymentMethodData | undefined): string | undefined {
  const wallet = data?.wallet;
  if (wallet?.google_pay !== undefined) return 'payment_method_data.wallet.google_pay.tokenization_data.token';
  if (wallet?.apple_pay !== undefined) return 'payment_method_data.wallet.apple_pay.payment_data';
  if (wallet?.paypal_sdk !== undefined) return 'payment_method_data.wallet.paypal_sdk.token';
  return undefined;
}

/** Whether `data` holds a wallet whose token an earlier confirm took (withoutWalletToken's placeholder). */
export function hasConsumedWalletToken(data: PaymentMethodData): boolean {
  const wallet = data.wallet;
  return (
    wallet?.google_pay?.tokenization_data.token === CONSUMED_WALLET_TOKEN ||
    wallet?.apple_pay?.payment_data === CONSUMED_WALLET_TOKEN ||
    wallet?.paypal_sdk?.token === CONSUMED_WALLET_TOKEN
  );
}
