import type { RailName } from '../../kernel/account-settings-types';
import type { LookupRequest, NotReceived, RailOutcome } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from '../shared/deps';
import { callRail } from '../shared/rail-call';
import { applyRailOutcome, declinedOutcome, recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';

/** Payment statuses in which the rail's answer to the last confirm is not known. */
export const UNSETTLED_PAYMENT_STATUSES = ['processing', 'requires_merchant_action'] as const;

/**
 * Asks the rail what became of the newest attempt of a payment whose confirm got no answer (the process died, the
 * rail threw or timed out), under the attempt id recorded before the call, and applies the answer with its event:
 * - an answer: as the confirm would have applied it;
 * - the rail never received the attempt: nothing moved, so the payment fails (error_code rail_not_reached);
 * - no answer again: the payment stays processing until RecoveryPolicy.deadlineMs after its confirm, then moves to
 *   requires_merchant_action with an action_required event, for an operator (docs/reliability.md).
 * Any other payment is returned unchanged.
 */
export async function recoverUnsettledPayment(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  if (!(UNSETTLED_PAYMENT_STATUSES as readonly string[]).includes(payment.status)) return payment;
  const adapter = payment.rail === null ? undefined : deps.rails.adapterFor(payment.mode, payment.rail as RailName);
  const attempt = (await deps.store.attempts.listAttempts(payment, payment.paymentId)).at(-1);
  const lookup = adapter?.lookupAuthorization?.bind(adapter);
  const now = deps.clock.now();
  const policy = deps.recovery ?? DEFAULT_RECOVERY_POLICY;
  if (lookup !== undefined && attempt !== undefined) {
    const request: LookupRequest = { accountId: payment.accountId, mode: payment.mode, reference: attempt.attemptId, now };
    const call = await callRail<RailOutcome | NotReceived>(deps, () => lookup(request));
    if (call.kind === 'answered') {
      const answer = call.answer;
      if (answer.kind === 'not_received') {
        // Within the call limit the confirm may still be on its way to the rail: too early to say it never arrived.
        if (now.getTime() - payment.updatedAt.getTime() < policy.railCallTimeoutMs) return payment;
        return applyRailOutcome(deps, payment, declinedOutcome(attempt.attemptId, 'rail_not_reached', 'The rail never received this payment; nothing was charged.'), 'rail_result');
      }
      if (answer.kind !== 'pending') return applyRailOutcome(deps, payment, answer, 'rail_result');
    }
  }
  if (payment.status === 'processing' && now.getTime() - payment.updatedAt.getTime() >= policy.deadlineMs) {
    return moveToMerchantAction(deps, payment, now);
  }
  return payment;
}

async function moveToMerchantAction(deps: CoreDeps, payment: PaymentRecord, now: Date): Promise<PaymentRecord> {
  const decision = decideTransition(payment.status, 'recovery_deadline', { hasPaymentMethodData: true, captureMethod: payment.captureMethod });
  if (!decision.allowed) return payment;
  const updated = await deps.store.transaction(async (tx) => {
    const next = await tx.payments.updatePaymentIfStatus(payment, payment.paymentId, [payment.status], {
      status: decision.to,
      errorCode: 'rail_unresolved',
      errorMessage: 'The rail has not said whether this payment went through; check with the rail before acting on it.',
      errorReason: null,
      updatedAt: now,
    });
    if (next !== undefined) await recordPaymentEvent(deps, tx, next, now);
    return next;
  });
  return updated ?? (await deps.store.payments.findPayment(payment, payment.paymentId)) ?? payment;
}
