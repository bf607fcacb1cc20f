import { refuseWhileCancellingAfterCapture } from '../payments/rail-hold-changes';
import type { SimulateDisputeRequest } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import { findCurrentPaymentOrThrow } from '../payments/open-authorization';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { recordDisputeEvent } from './dispute-event';
import { DISPUTABLE_PAYMENT_STATUSES, decideDisputeTransition } from './dispute-transitions';

/** Days the merchant has to answer a dispute the simulator raises (challenge_required_by; docs/open-points.md). */
export const SIMULATED_CHALLENGE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * POST /simulator/disputes (test mode, secret key): the test simulator reports a dispute on a succeeded payment, as a
 * rail that reports disputes would. Only where the account's settings give the payment's rail the disputes
 * capability in this mode (api-conventions §8; the default account has none: ERR_4064). The amount (default: all that
 * is left to dispute) is at most the captured amount minus refunds minus what the payment's other disputes hold
 * (ERR_2003). The hold of that amount on the payment, the dispute (stage dispute, status dispute_opened) and its
 * dispute_opened event are written in one transaction.
 */
export async function raiseDispute(deps: CoreDeps, auth: AuthContext, body: SimulateDisputeRequest): Promise<DisputeRecord> {
  if (auth.mode !== 'test') throw noDisputes('The dispute simulator works in test mode only.');
  const payment = await findCurrentPaymentOrThrow(deps, auth, body.payment_id, 'payment_id');
  const decision = decideDisputeTransition(null, 'raise', { paymentStatus: payment.status });
  if (!decision.allowed) throw notDisputable(payment);
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === payment.rail);
  if (rail === undefined || !rail.capabilities[auth.mode].disputes) {
    throw noDisputes('The rail of this payment reports no disputes on this account in this mode.');
  }
  // Under an Idempotency-Key the id is derived from the request (kernel/ids.ts): a re-run after a crash that followed the
  // commit finds its dispute, whose hold the amounts below already count.
  const disputeId = deps.ids.id('dispute');
  const rerun = await deps.store.disputes.findDispute(auth, disputeId);
  if (rerun !== undefined) return rerun;
  // A refund or dispute that lands after these reads is caught by the conditional hold below.
  const refunded = (await deps.store.refunds.findRefundedAmount(auth, payment.paymentId)) ?? 0;
  const disputed = (await deps.store.disputes.findDisputedAmount(auth, payment.paymentId)) ?? 0;
  const disputable = (payment.amountReceived ?? 0) - refunded - disputed;
  const amount = body.amount ?? disputable;
  if (amount <= 0 || amount > disputable) throw overDisputable(disputable);
  const now = deps.clock.now();
  const dispute: DisputeRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    disputeId,
    paymentId: payment.paymentId,
    profileId: payment.profileId,
    amount,
    currency: payment.currency,
    stage: 'dispute',
    status: decision.to,
    reason: body.reason ?? null,
    rail: payment.rail,
    connector: payment.connector,
    merchantConnectorId: null,
    evidence: {},
    evidenceSubmittedAt: null,
    challengeRequiredBy: new Date(now.getTime() + SIMULATED_CHALLENGE_DAYS * DAY_MS),
    // Set under the hold below.
    isAlreadyRefunded: false,
    createdAt: now,
    updatedAt: now,
  };
  const held = await deps.store.transaction(async (tx) => {
    // The amount is held on the payment row in the dispute's transaction: a concurrent refund, dispute or cancel post
    // capture either lands first (and this hold finds less, or a status that is not disputable) or waits for it.
    if (!(await tx.disputes.holdDisputedAmount(auth, payment.paymentId, amount, DISPUTABLE_PAYMENT_STATUSES))) return undefined;
    refuseWhileCancellingAfterCapture(await tx.payments.findPayment(auth, payment.paymentId), 'dispute');
    // Read again under the hold, which waited for any refund reserved since the read above.
    dispute.isAlreadyRefunded = ((await tx.refunds.findRefundedAmount(auth, payment.paymentId)) ?? 0) > 0;
    if ((await tx.disputes.insertDispute(dispute)) === 'duplicate') throw new Error('generated dispute id already stored');
    await recordDisputeEvent(deps, tx, dispute, now);
    return dispute;
  });
  if (held === undefined) {
    // Another refund, dispute or status change got there first: say which rule now stops this one.
    const current = await findCurrentPaymentOrThrow(deps, auth, payment.paymentId, 'payment_id');
    if (!decideDisputeTransition(null, 'raise', { paymentStatus: current.status }).allowed) throw notDisputable(current);
    const nowRefunded = (await deps.store.refunds.findRefundedAmount(auth, payment.paymentId)) ?? 0;
    const nowDisputed = (await deps.store.disputes.findDisputedAmount(auth, payment.paymentId)) ?? 0;
    throw overDisputable((current.amountReceived ?? 0) - nowRefunded - nowDisputed);
  }
  return held;
}

function notDisputable(payment: PaymentRecord): ApiError {
  return new ApiError(
    'ERR_4003',
    `This payment cannot be disputed because it has status ${payment.status}. The expected status is ${DISPUTABLE_PAYMENT_STATUSES.join(' or ')}.`,
  );
}

/** What is left to dispute: captured, minus refunds, minus what other disputes hold. */
function overDisputable(disputable: number): ApiError {
  return new ApiError(
    'ERR_2003',
    `The disputed amount must be at least 1 and at most what is left to dispute on the payment: the captured amount minus refunds and the amounts other disputes hold (${Math.max(disputable, 0)}).`,
    { fieldName: 'amount' },
  );
}

function noDisputes(message: string): ApiError {
  return new ApiError('ERR_4064', message);
}
