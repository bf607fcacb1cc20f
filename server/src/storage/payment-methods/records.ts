/** Records of stored payment methods (see records.ts of payments for the conventions). */
import type { JsonObject } from '../../../../protocol/api/payments';
import type { PaymentMethod, PaymentMethodType } from '../../../../protocol/api/enums';
import type { Scope } from '../../kernel/store-types';

/** The display fields of a stored card (never the number). */
export interface StoredCardFields {
  last4: string | null;
  cardNetwork: string | null;
  expMonth: string | null;
  expYear: string | null;
  holderName: string | null;
  nickName: string | null;
  cardIssuer: string | null;
  issuerCountry: string | null;
  cardType: string | null;
}

export interface StoredPaymentMethodRecord extends Scope {
  paymentMethodId: string;
  customerId: string | null;
  paymentMethod: PaymentMethod;
  paymentMethodType: PaymentMethodType | null;
  paymentMethodIssuer: string | null;
  card: StoredCardFields | null;
  /**
   * The card number and holder name sealed by the vault (bound to this payment_method_id), when the method was saved
   * from a card payment; null for a method created by POST /payment_methods (no number is ever accepted there).
   */
  cardCiphertext: string | null;
  /** The UPI instrument saved from a UPI payment (Hyperswitch upi_collect: vpa_id). */
  upi: JsonObject | null;
  wallet: JsonObject | null;
  bankTransfer: JsonObject | null;
  metadata: JsonObject | null;
  /** The rail that carried the payment the method was saved from; null when created by the API. */
  rail: string | null;
  /** Whether the method can be charged later: saved from a payment on a rail with recurring switched on. */
  recurringEnabled: boolean;
  originPaymentId: string | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an update may change (undefined: keep). */
export type StoredPaymentMethodPatch = Partial<Pick<StoredPaymentMethodRecord, 'card' | 'wallet' | 'lastUsedAt'>> & { updatedAt: Date };

/** What a payment that waits for its customer will save if it succeeds (the card already sealed). */
export interface PendingSaveInstrument {
  paymentMethodId: string;
  rail: string;
  card: StoredCardFields | null;
  cardCiphertext: string | null;
  upi: JsonObject | null;
  withMandate: boolean;
  customerAcceptance: JsonObject | null;
}

export interface PendingMethodSaveRecord extends Scope {
  paymentId: string;
  instrument: PendingSaveInstrument;
  createdAt: Date;
}
