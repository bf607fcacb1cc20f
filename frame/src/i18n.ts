import type { Locale } from '../../protocol/frame-messages';
import { LOCALE_CHUNKS } from './locale-chunks';

const EN = {
  methodLegend: 'Payment method',
  tabCard: 'Card',
  tabUpiCollect: 'UPI',
  tabUpiIntent: 'UPI app',
  tabUpiQr: 'UPI QR',
  tabBankTransfer: 'Bank transfer',
  tabMobileMoney: 'Mobile money',
  tabCrypto: 'Crypto',
  tabGooglePay: 'Google Pay (test)',
  tabApplePay: 'Apple Pay (test)',
  tabPayPal: 'PayPal (test)',
  walletHint: 'Test mode: no wallet opens; the simulator answers for it.',
  walletOutcomeLabel: 'Wallet answer',
  walletApproved: 'Approve',
  walletDeclined: 'Decline',
  tabSaved: 'Saved',
  savedHint: 'Pays with the saved method',
  cardNumberLabel: 'Card number',
  cardNumberPlaceholder: '1234 1234 1234 1234',
  expiryLabel: 'Expiry date',
  expiryPlaceholder: 'MM / YY',
  cvcLabel: 'Security code',
  cvcPlaceholder: 'CVC',
  nameLabel: 'Name on card',
  cardNumberRequired: 'Enter your card number.',
  cardNumberIncomplete: 'Your card number is incomplete.',
  cardNumberInvalid: 'Your card number is invalid.',
  expiryRequired: 'Enter the expiry date.',
  expiryIncomplete: 'The expiry date is incomplete.',
  expiryInvalid: 'Enter a month from 01 to 12.',
  expiryPast: 'This card has expired.',
  expiryTooFar: 'The expiry year is too far in the future.',
  cvcRequired: 'Enter the security code.',
  cvcIncomplete: 'The security code is incomplete.',
  nameRequired: 'Enter the name on the card.',
  nameInvalid: 'Use letters only in the name.',
  upiIntentHint: 'You will open your UPI app to approve the payment.',
  upiIntentOpen: 'Open your UPI app',
  upiQrHint: 'You will scan a QR code with any UPI app.',
  qrAlt: 'QR code for this payment',
  qrScan: 'Scan this QR code with your UPI app. This page updates by itself.',
  qrLink: 'Open the payment link',
  bankTransferHint: 'You will get the transfer details after you confirm.',
  bankTransferTitle: 'Make the transfer with these details. This page updates when it arrives.',
  mobileMoneyLabel: 'Mobile money number',
  mobileMoneyPlaceholder: '0712 345 678',
  mobileMoneyHint: 'You will approve the payment on this phone.',
  msisdnRequired: 'Enter your mobile money number.',
  msisdnInvalid: 'Enter a phone number of 8 to 15 digits.',
  mobileMoneyTitle: 'Approve the prompt on your phone, or pay with these details. This page updates by itself.',
  simulatorOpen: 'Simulate the customer’s payment (test mode)',
  cryptoHint: 'You will get a wallet address and the amount to send after you confirm.',
  cryptoCurrencyLabel: 'Pay in',
  cryptoTitle: 'Send exactly this amount to this address. This page updates when it arrives.',
  cryptoAddress: 'Wallet address',
  cryptoAmount: 'Amount',
  cryptoNetwork: 'Network',
  cryptoOpen: 'Open the payment page',
  actionWaiting: 'Waiting for the payment…',
  redirecting: 'Redirecting to confirm the payment…',
  amount: 'Amount due',
  upiLabel: 'UPI ID',
  upiPlaceholder: 'name@bank',
  upiHint: 'You will approve the payment in your UPI app.',
  vpaRequired: 'Enter your UPI ID.',
  vpaInvalid: 'Enter a UPI ID like name@bank.',
  loading: 'Loading payment methods…',
  processing: 'Sending the payment request…',
  waiting: 'Approve the payment request in your UPI app. This page updates by itself.',
  succeeded: 'Payment succeeded.',
  failed: 'The payment failed.',
  pending: 'The payment is not complete yet.',
  loadFailed: 'The payment form could not load. Refresh the page to try again.',
  requestFailed: 'The payment could not be sent. Check your connection and try again.',
  noMethods: 'No payment method is available for this payment.',
};
export type MessageKey = keyof typeof EN;
export type Messages = Record<MessageKey, string>;

const loading = new Map<Locale, Promise<Messages>>();

/** A locale's messages: English at once, another once its chunk is in (English when the chunk cannot load). */
export function loadMessages(locale: Locale): Promise<Messages> {
  if (locale === 'en') return Promise.resolve(EN);
  let pending = loading.get(locale);
  if (pending === undefined) {
    pending = LOCALE_CHUNKS[locale]().then(
      (chunk) => chunk.MESSAGES,
      () => {
        // A later call tries again (a deployment replaced the chunk, the network came back).
        loading.delete(locale);
        return EN;
      },
    );
    loading.set(locale, pending);
  }
  return pending;
}

/** The messages shown until a locale's own are in. */
export const DEFAULT_MESSAGES: Messages = EN;
