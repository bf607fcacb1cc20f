/**
 * Records the rail's answer to a capture or a void of an open authorization (docs/capture.md, "The rail"), with the
 * payment's change and its event in one transaction, and recovers the ones whose request died before it could: the
 * rail is asked under the capture id or the void's reference what it did (and a capture it never received is sent again
 * under the same capture id: the rail captures once per reference).
 *
 * An answer applies only while the payment still holds the capture's (or the void's) entry in railState, and the
 * write is version-checked: of the request that asked and recovery, the first records it and the other finds it
 * recorded.
 */
import type { CancelCapturesOutcome, CancelCapturesRequest, CaptureOutcome, NotReceived, VoidOutcome } from '../../rails/rail-adapter';
import type { Scope } from '../../kernel/store-types';
import type { PaymentRecord } from '../../storage/payments/records';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from '../shared/deps';
import { callRail } from '../shared/rail-call';
import { railAdapterOf } from './authorization-validity';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import { recoverIncrease } from './incremental-authorization';
import { recordCancellation } from './record-cancellation';
import {
  cancelPostCaptureInProgress,
  type CancelPostCaptureInProgress,
  type CaptureInProgress,
  capturesInProgress,
  finalCaptureTaken,
  voidInProgress,
  withCancelPostCapture,
  withCapture,
  withFinalCaptureTaken,
  withVoid,
} from './rail-hold-changes';

/** When a capture or void asked now is taken to have died with its request: after the rail call's limit, twice. */
export function holdChangeLease(deps: CoreDeps, now: Date): string {
  return new Date(now.getTime() + 2 * (deps.recovery ?? DEFAULT_RECOVERY_POLICY).railCallTimeoutMs).toISOString();
}

/**
 * The rail took the capture: amount_received grows by what the rail says it captured (CaptureOutcome.amount, the truth
 * of what moved, which the capture record then shows) and the payment moves as the capture transition says (succeeded
 * once everything authorized is captured; partially_captured when the rest was released and no other capture is at
 * the rail; else partially_captured_and_capturable). A rail that captured less than asked keeps the difference in the
 * authorization, which becomes capturable again, unless a capture of the payment went out final (this one, another
 * still at the rail, or one already taken: the rail released the rest). One that captured more took it from what was
 * capturable (what other captures at the rail reserved is not); an excess beyond that, or an amount that is not a
 * positive whole number, is not applied: the capture stays pending with the answer kept in its entry
 * (unapplied_answer) for an operator, and the payment waits. The rail refused it: the payment is as before the capture
 * (what it reserved of amount_capturable is given back, unless a capture went out final) and the capture is `failed`,
 * with no event (unless that leaves the payment with nothing to capture and nothing at the rail: then its rest is
 * released).
 */
export async function settleCapture(deps: CoreDeps, scope: Scope, paymentId: string, captureId: string, outcome: CaptureOutcome): Promise<PaymentRecord> {
  return withCurrentPayment(deps, scope, paymentId, async (current) => {
    const entry = capturesInProgress(current)[captureId];
    if (entry === undefined || entry.unapplied_answer !== undefined) return current;
    const now = deps.clock.now();
    const others = Object.entries(capturesInProgress(current)).filter(([id]) => id !== captureId);
    const othersAtRail = others.length > 0;
    // The rail closed the authorization (or will): nothing this capture leaves is capturable again.
    const closedByAnother = finalCaptureTaken(current) || others.some(([, other]) => other.final);
    const tookFinal = outcome.kind === 'captured' && entry.final;
    const railState = withFinalCaptureTaken(withCapture(current.railState, captureId, undefined), othersAtRail && (finalCaptureTaken(current) || tookFinal));
    if (outcome.kind === 'captured' && !capturable(current, entry, outcome.amount)) {
      const held = withCapture(current.railState, captureId, { ...entry, unapplied_answer: { reference: outcome.reference, amount: outcome.amount } });
      const next = await deps.store.payments.updatePaymentIfVersion(scope, paymentId, current.version, { railState: held, updatedAt: now });
      return next ?? LOST;
    }
    return deps.store.transaction(async (tx) => {
      if (outcome.kind === 'declined' && (othersAtRail || !finalCaptureTaken(current))) {
        const next = await tx.payments.updatePaymentIfVersion(scope, paymentId, current.version, {
          amountCapturable: current.amountCapturable + (closedByAnother ? 0 : entry.amount + entry.releases),
          railState,
          updatedAt: now,
        });
        if (next === undefined) return LOST;
        await tx.captures.settlePendingCapture(scope, captureId, {
          status: 'failed',
          connectorCaptureId: outcome.reference,
          errorCode: outcome.errorCode,
          errorMessage: outcome.errorMessage,
        });
        return next;
      }
      // Taken, or refused as the last at the rail after a final capture was taken (the rest is then released).
      const captured = outcome.kind === 'captured' ? outcome.amount : 0;
      const givenBack = entry.final || closedByAnother ? 0 : Math.max(0, entry.amount - captured);
      const amountCapturable = current.amountCapturable + givenBack - Math.max(0, captured - entry.amount);
      const capturedTotal = (current.amountReceived ?? 0) + captured;
      const decision = decideTransition(current.status, 'capture', {
        hasPaymentMethodData: true,
        captureMethod: current.captureMethod,
        capture: { amount: current.amount, capturedTotal, releaseRest: amountCapturable === 0 && !othersAtRail },
      });
      if (!decision.allowed) throw new Error(`payment ${paymentId} in ${current.status} cannot record its capture ${captureId}`);
      const next = await tx.payments.updatePaymentIfVersion(scope, paymentId, current.version, {
        status: decision.to,
        amountReceived: outcome.kind === 'captured' ? capturedTotal : current.amountReceived,
        amountCapturable: decision.to === 'partially_captured_and_capturable' ? amountCapturable : 0,
        railState,
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      await tx.captures.settlePendingCapture(
        scope,
        captureId,
        outcome.kind === 'captured'
          ? { status: 'charged', connectorCaptureId: outcome.reference, errorCode: null, errorMessage: null, amount: captured }
          : { status: 'failed', connectorCaptureId: outcome.reference, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage },
      );
      // The attempt is charged once its authorization is used up (nothing left to capture, nothing at the rail).
      if (next.amountCapturable === 0 && !othersAtRail) await tx.attempts.updateLatestAttempt(scope, paymentId, { status: 'charged', updatedAt: now });
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
  });
}

/**
 * Whether the payment can take `amount` captured by the rail for the capture `entry` asked: a positive whole number,
 * and what it exceeds the ask by no more than amount_capturable (which what other captures at the rail reserved has
 * already left).
 */
function capturable(current: PaymentRecord, entry: CaptureInProgress, amount: number): boolean {
  return Number.isSafeInteger(amount) && amount > 0 && amount - entry.amount <= current.amountCapturable;
}

/**
 * The rail released the authorization: the payment is `cancelled` (its attempt voided, a pending save dropped), with
 * its event. The rail refused the void: the payment is as before it (amount_capturable given back), no event.
 */
export async function settleVoid(deps: CoreDeps, scope: Scope, paymentId: string, outcome: VoidOutcome): Promise<PaymentRecord> {
  return withCurrentPayment(deps, scope, paymentId, async (current) => {
    const entry = voidInProgress(current);
    if (entry === undefined) return current;
    const now = deps.clock.now();
    const railState = withVoid(current.railState, undefined);
    if (outcome.kind === 'declined') {
      const next = await deps.store.payments.updatePaymentIfVersion(scope, paymentId, current.version, { amountCapturable: entry.restores, railState, updatedAt: now });
      return next ?? LOST;
    }
    const decision = decideTransition(current.status, 'cancel', { hasPaymentMethodData: current.paymentMethodData !== null, captureMethod: current.captureMethod });
    if (!decision.allowed) throw new Error(`payment ${paymentId} in ${current.status} cannot record its void`);
    return recordCancellation(deps, scope, current, { to: decision.to, reason: entry.cancellation_reason, requestReference: entry.request_reference, railState }, now);
  });
}

/**
 * The rail cancelled the captures (and released the rest): the payment is `cancelled_post_capture` (its attempt
 * voided), with its event. The rail refused: the payment is as before (amount_capturable given back), no event.
 */
export async function settleCancelPostCapture(deps: CoreDeps, scope: Scope, paymentId: string, outcome: CancelCapturesOutcome): Promise<PaymentRecord> {
  return withCurrentPayment(deps, scope, paymentId, async (current) => {
    const entry = cancelPostCaptureInProgress(current);
    if (entry === undefined) return current;
    const now = deps.clock.now();
    const railState = withCancelPostCapture(current.railState, undefined);
    if (outcome.kind === 'declined') {
      const next = await deps.store.payments.updatePaymentIfVersion(scope, paymentId, current.version, { amountCapturable: entry.restores, railState, updatedAt: now });
      return next ?? LOST;
    }
    // Refunds and disputes were checked when it was reserved; refunds wait for it (create-refund.ts).
    const decision = decideTransition(current.status, 'cancel_post_capture', { hasPaymentMethodData: true, captureMethod: current.captureMethod, refunded: 0, disputed: 0 });
    if (!decision.allowed) throw new Error(`payment ${paymentId} in ${current.status} cannot record its cancel after capture`);
    return recordCancellation(deps, scope, current, { to: decision.to, reason: entry.cancellation_reason, requestReference: entry.request_reference, railState }, now);
  });
}

/**
 * Recovery of the increase (incremental-authorization.ts recoverIncrease), the captures, the void and the cancel after
 * capture of `payment` whose request is taken to have died (its lease lapsed): each is
 * asked of the rail by its reference, a capture the rail never received is sent again under its capture id, and an
 * answer is recorded as the request would have recorded it. A rail that does not answer leaves them for the next
 * round. Returns the payment as it then is: `payment` itself when nothing was recorded.
 */
export async function recoverHoldChanges(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  // An increase whose request died first (captures and voids wait for a live one, so at most a lapsed one is there).
  const increased = await recoverIncrease(deps, payment);
  const now = deps.clock.now();
  const lapsed = (leaseExpiresAt: string) => Date.parse(leaseExpiresAt) <= now.getTime();
  // A capture whose answer could not be applied waits for an operator: the rail is not asked again.
  const captures = Object.entries(capturesInProgress(payment)).filter(([, entry]) => entry.unapplied_answer === undefined && lapsed(entry.lease_expires_at));
  const voiding = voidInProgress(payment);
  const cancelling = cancelPostCaptureInProgress(payment);
  if (captures.length === 0 && (voiding === undefined || !lapsed(voiding.lease_expires_at)) && (cancelling === undefined || !lapsed(cancelling.lease_expires_at))) {
    return increased;
  }
  const adapter = railAdapterOf(deps, payment);
  const scope: Scope = { accountId: payment.accountId, mode: payment.mode };
  const lookupRequest = (reference: string) => ({ accountId: payment.accountId, mode: payment.mode, reference, now });
  let current = increased;
  const lookupCapture = adapter?.lookupCapture?.bind(adapter);
  const capture = adapter?.capture?.bind(adapter);
  if (lookupCapture !== undefined && capture !== undefined) {
    for (const [captureId, entry] of captures) {
      const looked = await callRail<CaptureOutcome | NotReceived>(deps, () => lookupCapture(lookupRequest(captureId)));
      if (looked.kind !== 'answered') continue;
      let answer: CaptureOutcome | undefined = looked.answer.kind === 'not_received' ? undefined : looked.answer;
      if (answer === undefined) {
        const sent = await callRail(deps, () =>
          capture({
            accountId: payment.accountId,
            mode: payment.mode,
            paymentId: payment.paymentId,
            attemptId: entry.attempt_id,
            captureId,
            railReference: payment.railReference,
            amount: entry.amount,
            authorizedAmount: current.amount,
            final: entry.final,
            currency: payment.currency,
            now,
          }),
        );
        if (sent.kind === 'answered') answer = sent.answer;
      }
      if (answer !== undefined) current = await settleCapture(deps, scope, payment.paymentId, captureId, answer);
    }
  }
  const lookupVoid = adapter?.lookupVoid?.bind(adapter);
  const voidAuthorization = adapter?.voidAuthorization?.bind(adapter);
  if (voiding !== undefined && lapsed(voiding.lease_expires_at) && lookupVoid !== undefined && voidAuthorization !== undefined) {
    const looked = await callRail<VoidOutcome | NotReceived>(deps, () => lookupVoid(lookupRequest(voiding.reference)));
    if (looked.kind === 'answered') {
      let answer: VoidOutcome | undefined = looked.answer.kind === 'not_received' ? undefined : looked.answer;
      if (answer === undefined) {
        const request = { accountId: payment.accountId, mode: payment.mode, paymentId: payment.paymentId, attemptId: voiding.attempt_id, reference: voiding.reference, railReference: payment.railReference, now };
        const sent = await callRail(deps, () => voidAuthorization(request));
        if (sent.kind === 'answered') answer = sent.answer;
      }
      if (answer !== undefined) current = await settleVoid(deps, scope, payment.paymentId, answer);
    }
  }
  const lookupCancelCaptures = adapter?.lookupCancelCaptures?.bind(adapter);
  const cancelCaptures = adapter?.cancelCaptures?.bind(adapter);
  if (cancelling !== undefined && lapsed(cancelling.lease_expires_at) && lookupCancelCaptures !== undefined && cancelCaptures !== undefined) {
    const looked = await callRail<CancelCapturesOutcome | NotReceived>(deps, () => lookupCancelCaptures(lookupRequest(cancelling.reference)));
    if (looked.kind === 'answered') {
      let answer: CancelCapturesOutcome | undefined = looked.answer.kind === 'not_received' ? undefined : looked.answer;
      if (answer === undefined) {
        const sent = await callRail(deps, () => cancelCaptures(cancelCapturesRequest(payment, cancelling, now)));
        if (sent.kind === 'answered') answer = sent.answer;
      }
      if (answer !== undefined) current = await settleCancelPostCapture(deps, scope, payment.paymentId, answer);
    }
  }
  return current;
}

/** The rail request of the cancel after capture `entry` of `payment` (reserved in cancel-post-capture.ts). */
export function cancelCapturesRequest(payment: PaymentRecord, entry: CancelPostCaptureInProgress, now: Date): CancelCapturesRequest {
  return {
    accountId: payment.accountId,
    mode: payment.mode,
    paymentId: payment.paymentId,
    attemptId: entry.attempt_id,
    reference: entry.reference,
    railReference: payment.railReference,
    captured: payment.amountReceived ?? 0,
    releases: entry.restores,
    currency: payment.currency,
    now,
  };
}
