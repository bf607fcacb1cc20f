import type { RetrievePaymentQuery } from '../../../protocol/api/payments';
import type { PaymentRecord } from '../storage/records';
import { authorizePaymentAccess, requireKeyKind, type AuthContext } from './auth';
import type { CoreDeps } from './deps';
import { ApiError } from './errors';
import { applyRailOutcome } from './payment-outcome';
import type { RailName } from './account-settings';

/**
 * GET /payments/{payment_id}: a secret key, or a publishable key with the payment's client_secret. A payment that
 * waits for the customer asks its rail whether the customer has answered (the simulator answers
 * deterministically on the injected clock; docs/simulator.md).
 */
export async function retrievePayment(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  query: RetrievePaymentQuery,
): Promise<PaymentRecord> {
  requireKeyKind(auth, ['secret', 'publishable']);
  const payment = await deps.store.payments.findPayment(auth, paymentId);
  if (payment === undefined) throw new ApiError('ERR_4001', `No payment ${paymentId} exists for this account and mode.`);
  authorizePaymentAccess(auth, payment, query.client_secret, deps.clock.now(), true);
  return syncWithRail(deps, payment);
}

/** Asks the rail about a payment waiting for the customer; any other payment is returned unchanged. */
export async function syncWithRail(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  if (payment.status !== 'requires_customer_action' || payment.rail === null || payment.railReference === null) {
    return payment;
  }
  const adapter = deps.rails.adapterFor(payment.mode, payment.rail as RailName);
  if (adapter === undefined) return payment;
  const outcome = await adapter.sync({
    mode: payment.mode,
    paymentId: payment.paymentId,
    amount: payment.amount,
    railReference: payment.railReference,
    railState: payment.railState,
    now: deps.clock.now(),
  });
  return applyRailOutcome(deps, payment, outcome, 'rail_sync');
}
