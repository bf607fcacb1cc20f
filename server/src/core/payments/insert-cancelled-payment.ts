import { CLIENT_SECRET_RANDOM_LENGTH, clientSecretOf } from '../../../../protocol/ids';
import type { Currency } from '../../../../protocol/currency';
import type { JsonObject } from '../../../../protocol/api/payments';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { PaymentRecord } from '../../storage/payments/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { recordPaymentEvent } from './payment-outcome';

/** A payment id taken for good by another family's operation, and what the payment shows for it. */
export interface CancelledPayment {
  scope: Scope;
  paymentId: string;
  profileId: string;
  amount: number;
  currency: Currency;
  customerId: string | null;
  description: string;
  metadata: JsonObject;
  cancellationReason: string;
}

/**
 * Inserts a payment that is `cancelled` from the start (with its payment_cancelled event), in the caller's
 * transaction: it takes the payment id, so that a create under that id, which may still come from a run presumed
 * dead, is refused (ERR_4002: no create body has its fingerprint) before anything reaches a rail. 'duplicate': a
 * payment holds the id already, and decides.
 */
export async function insertCancelledPayment(deps: CoreDeps, tx: Stores, cancelled: CancelledPayment, now: Date): Promise<InsertResult> {
  const payment: PaymentRecord = {
    accountId: cancelled.scope.accountId,
    mode: cancelled.scope.mode,
    paymentId: cancelled.paymentId,
    profileId: cancelled.profileId,
    status: 'cancelled',
    amount: cancelled.amount,
    currency: cancelled.currency,
    amountCapturable: 0,
    amountReceived: null,
    amountToCapture: null,
    shippingCost: null,
    orderTaxAmount: null,
    captureMethod: 'automatic',
    customerId: cancelled.customerId,
    description: cancelled.description,
    returnUrl: null,
    setupFutureUsage: null,
    paymentMethod: null,
    paymentMethodType: null,
    paymentMethodData: null,
    metadata: cancelled.metadata,
    merchantOrderReferenceId: null,
    clientSecret: clientSecretOf(cancelled.paymentId, deps.ids.secret(CLIENT_SECRET_RANDOM_LENGTH)),
    clientSecretExpiresAt: now,
    nextAction: null,
    errorCode: null,
    errorMessage: null,
    errorReason: null,
    rail: null,
    connector: null,
    railReference: null,
    railState: null,
    // Not a SHA-256 like every create's fingerprint: a create under this id is refused, never replayed.
    requestFingerprint: cancelled.cancellationReason,
    requestFields: {},
    cancellationReason: cancelled.cancellationReason,
    paymentMethodId: null,
    mandateId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const inserted = await tx.payments.insertPayment(payment);
  if (inserted === 'inserted') await recordPaymentEvent(deps, tx, payment, now);
  return inserted;
}
