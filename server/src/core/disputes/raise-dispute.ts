import type { SimulateDisputeRequest } from '../../../../protocol/api/disputes';
import type { DisputeRecord } from '../../storage/disputes/records';
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
 * capability in this mode (api-conventions §8; the default account has none: ERR_4064). The dispute (stage dispute,
 * status dispute_opened) and its dispute_opened event are written in one transaction.
 */
export async function raiseDispute(deps: CoreDeps, auth: AuthContext, body: SimulateDisputeRequest): Promise<DisputeRecord> {
  if (auth.mode !== 'test') throw noDisputes('The dispute simulator works in test mode only.');
  const payment = await findCurrentPaymentOrThrow(deps, auth, body.payment_id, 'payment_id');
  const decision = decideDisputeTransition(null, 'raise', { paymentStatus: payment.status });
  if (!decision.allowed) {
    throw new ApiError(
      'ERR_4003',
      `This payment cannot be disputed because it has status ${payment.status}. The expected status is ${DISPUTABLE_PAYMENT_STATUSES.join(' or ')}.`,
    );
  }
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === payment.rail);
  if (rail === undefined || !rail.capabilities[auth.mode].disputes) {
    throw noDisputes('The rail of this payment reports no disputes on this account in this mode.');
  }
  const captured = payment.amountReceived ?? 0;
  const amount = body.amount ?? captured;
  if (amount <= 0 || amount > captured) {
    throw new ApiError('ERR_2003', 'The disputed amount must be at least 1 and at most the captured amount of the payment.', { fieldName: 'amount' });
  }
  const refunded = (await deps.store.refunds.findRefundedAmount(auth, payment.paymentId)) ?? 0;
  const now = deps.clock.now();
  const dispute: DisputeRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    disputeId: deps.ids.id('dispute'),
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
    isAlreadyRefunded: refunded > 0,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    if ((await tx.disputes.insertDispute(dispute)) === 'duplicate') throw new Error('generated dispute id already stored');
    await recordDisputeEvent(deps, tx, dispute, now);
  });
  return dispute;
}

function noDisputes(message: string): ApiError {
  return new ApiError('ERR_4064', message);
}
