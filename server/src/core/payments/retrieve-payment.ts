import type { PaymentResponse, RetrievePaymentQuery } from '../../../../protocol/api/payments';
import type { PaymentRecord } from '../../storage/payments/records';
import type { RailOutcome } from '../../rails/rail-adapter';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { findPaymentOfCaller } from './find-payment';
import { paymentCustomerDetails } from './payment-customer';
import { capturesOf, toAttemptResponse, toCaptureResponse } from './payment-attempts';
import { expireLapsedAuthorization } from './open-authorization';
import { recoverHoldChanges } from './settle-hold-change';
import { recoverUnsettledPayment, UNSETTLED_PAYMENT_STATUSES } from './recover-payment';
import { applyRailOutcome } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import type { RailName } from '../../kernel/account-settings-types';
import { toPaymentResponse } from './payment-view';

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
  const found = await findPaymentOfCaller(deps, auth, paymentId, query.client_secret);
  // A capture or void whose request died is asked of the rail on the merchant's reads (a browser's polls would ask an
  // unthrottled rail, each waiting out its time limit while the rail is down: the recovery job settles it for them);
  // then an open authorization (manual capture) past its expiry expires now, with its event.
  const recovered = auth.keyKind === 'secret' ? await recoverHoldChanges(deps, found) : found;
  const payment = await expireLapsedAuthorization(deps, recovered);
  return query.force_sync === 'true' ? forceSyncWithRail(deps, payment, auth) : syncWithRail(deps, payment, auth);
}

/**
 * GET /payments/{payment_id} as the API answers it: the payment, plus `attempts` (expand_attempts=true) and
 * `captures` (expand_captures=true; automatic capture: one capture per charged attempt; manual capture: one per
 * capture call, in sequence).
 */
export async function retrievePaymentResponse(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  query: RetrievePaymentQuery,
): Promise<PaymentResponse> {
  const payment = await retrievePayment(deps, auth, paymentId, query);
  // The stored customer, not the request's copy: it reflects updates, and null once the customer is deleted.
  // Fields added to the response, not spread into a copy (docs/architecture.md, "Objects on hot paths").
  const response = toPaymentResponse(payment);
  response.customer = await paymentCustomerDetails(deps, payment);
  if (query.expand_attempts !== 'true' && query.expand_captures !== 'true') return response;
  const attempts = await deps.store.attempts.listAttempts(payment, payment.paymentId);
  if (query.expand_attempts === 'true') response.attempts = attempts.map(toAttemptResponse);
  if (query.expand_captures === 'true') {
    response.captures = [...capturesOf(attempts), ...(await deps.store.captures.listCaptures(payment, payment.paymentId)).map(toCaptureResponse)];
  }
  return response;
}

/**
 * Runs `ask` unless `reader` is a browser's key whose reads of this payment asked its rail within the interval of
 * client-rail-syncs.ts (or are still asking): then `unasked` is the answer.
 */
async function askingAs<Answer>(deps: CoreDeps, reader: AuthContext | undefined, payment: PaymentRecord, unasked: Answer, ask: () => Promise<Answer>): Promise<Answer> {
  if (reader === undefined || reader.keyKind === 'secret' || deps.clientRailSyncs === undefined) return ask();
  const granted = deps.clientRailSyncs.tryAsk(payment, deps.clock.now().getTime());
  if (granted === undefined) return unasked;
  try {
    return await ask();
  } finally {
    granted.done();
  }
}

/** What the payment's rail says now, or undefined when no rail took it (or its adapter is not wired). */
async function askRail(deps: CoreDeps, payment: PaymentRecord): Promise<RailOutcome | undefined> {
  if (payment.rail === null || payment.railReference === null) return undefined;
  const adapter = deps.rails.adapterFor(payment.mode, payment.rail as RailName);
  return adapter?.sync({
    mode: payment.mode,
    paymentId: payment.paymentId,
    amount: payment.amount,
    railReference: payment.railReference,
    railState: payment.railState,
    now: deps.clock.now(),
  });
}

/**
 * force_sync=true: asks the rail about any payment it took, whatever its status. The answer is applied only where
 * the transition table has a row for it (a waiting payment resolving); otherwise the payment is unchanged. A
 * payment whose confirm got no answer (processing, requires_merchant_action) is asked about under its attempt id,
 * as the recovery job would. `reader`: who reads it, when a browser's key may be held back (client-rail-syncs.ts).
 */
export async function forceSyncWithRail(deps: CoreDeps, payment: PaymentRecord, reader?: AuthContext): Promise<PaymentRecord> {
  if ((UNSETTLED_PAYMENT_STATUSES as readonly string[]).includes(payment.status)) {
    return askingAs(deps, reader, payment, payment, () => recoverUnsettledPayment(deps, payment));
  }
  const outcome = await askingAs(deps, reader, payment, undefined, () => askRail(deps, payment));
  if (outcome === undefined || outcome.kind === 'pending') return payment;
  const decision = decideTransition(payment.status, 'rail_sync', {
    hasPaymentMethodData: true,
    captureMethod: payment.captureMethod,
    railResult: outcome.kind,
  });
  return decision.allowed ? applyRailOutcome(deps, payment, outcome, 'rail_sync') : payment;
}

/**
 * Asks the rail about a payment waiting for the customer; any other payment is returned unchanged. `reader`: who reads
 * it, when a browser's key may be held back (client-rail-syncs.ts).
 */
export async function syncWithRail(deps: CoreDeps, payment: PaymentRecord, reader?: AuthContext): Promise<PaymentRecord> {
  if (payment.status !== 'requires_customer_action') return payment;
  const outcome = await askingAs(deps, reader, payment, undefined, () => askRail(deps, payment));
  return outcome === undefined ? payment : applyRailOutcome(deps, payment, outcome, 'rail_sync');
}
