import type { PaymentStatus } from '../../../../protocol/payments';
import type { AuthorizationValidity, RailOutcome } from '../../rails/rail-adapter';
import { patchedPayment, type PaymentPatch, type PaymentRecord } from '../../storage/payments/records';
import type { Stores } from '../../storage/stores';
import type { CoreDeps } from '../shared/deps';
import { attemptPatchFor, recordAttemptOutcome } from './payment-attempts';
import { decideTransition, PAYMENT_EVENT_FOR_STATUS } from './payment-transitions';
import { toPaymentResponse } from './payment-view';
import { type ObjectEvent, outboxEventOf, recordObjectEvent } from '../shared/outbox-event';
import { type OutcomeHook, settlePendingSave } from '../mandates/save-for-future-usage';
import { authorizationValidityOf } from './authorization-validity';

const AUTOMATIC = new Set(['automatic', 'sequential_automatic']);

function patchFor(
  payment: PaymentRecord,
  outcome: Exclude<RailOutcome, { kind: 'pending' }>,
  to: PaymentStatus,
  now: Date,
  validity: AuthorizationValidity | undefined,
): PaymentPatch {
  switch (outcome.kind) {
    case 'authorized':
      return {
        status: to,
        // Hyperswitch keeps amount_captured null until money is captured: an open authorization has received nothing yet.
        amountReceived: AUTOMATIC.has(payment.captureMethod) ? outcome.amountReceived : null,
        amountCapturable: AUTOMATIC.has(payment.captureMethod) ? 0 : payment.amount,
        railReference: outcome.reference,
        railState: null,
        nextAction: null,
        errorCode: null,
        errorMessage: null,
        errorReason: null,
        updatedAt: now,
        // Manual capture: the authorization stays open for capture until the rail's validity runs out. Spread last
        // (docs/architecture.md, "Objects on hot paths").
        ...(to === 'requires_capture'
          ? { authorizedAt: now, authorizationExpiresAt: validity === undefined ? null : new Date(now.getTime() + validity.standardMs) }
          : {}),
      };
    case 'declined':
      return {
        status: to,
        amountCapturable: 0,
        railReference: outcome.reference,
        railState: null,
        nextAction: null,
        errorCode: outcome.errorCode,
        errorMessage: outcome.errorMessage,
        errorReason: outcome.errorReason,
        updatedAt: now,
      };
    case 'customer_action':
      return {
        status: to,
        railReference: outcome.reference,
        railState: outcome.state,
        nextAction: outcome.nextAction,
        updatedAt: now,
      };
  }
}

/** A decline Rail concludes itself (the rail never received the attempt), shaped as a rail's decline. */
export function declinedOutcome(reference: string, errorCode: string, errorMessage: string): RailOutcome {
  return { kind: 'declined', reference, errorCode, errorMessage, errorReason: errorMessage };
}

/**
 * Writes the outbox event a payment's new status announces, in the caller's transaction, for the payment's version
 * after the change (docs/webhooks.md): an event type repeats on one payment when the payment changes into that status
 * again (a second customer action, a second partial capture, an incremental or extended authorization), and the
 * same change recorded twice is one event.
 */
export async function recordPaymentEvent(deps: CoreDeps, tx: Stores, payment: PaymentRecord, now: Date): Promise<void> {
  const eventType = PAYMENT_EVENT_FOR_STATUS[payment.status];
  if (eventType === undefined) return;
  await recordObjectEvent(deps, tx, paymentEvent(payment, eventType), now);
}

function paymentEvent(payment: PaymentRecord, eventType: string): ObjectEvent {
  return {
    scope: payment,
    eventType,
    objectType: 'payment',
    objectId: payment.paymentId,
    objectVersion: payment.version,
    contentType: 'payment_details',
    object: toPaymentResponse(payment),
  };
}

/**
 * Applies a rail's answer: looks the transition up in the table, then updates the payment (only if it is still in
 * the status it was read in) and writes its outbox event in the same transaction. If another request applied an
 * answer first, returns the payment as stored.
 */
export async function applyRailOutcome(
  deps: CoreDeps,
  payment: PaymentRecord,
  outcome: RailOutcome,
  trigger: 'rail_result' | 'rail_sync',
  /**
   * Runs in the transaction of the outcome, before its event (recurring: save the method and the mandate). A later
   * answer (rail_sync) settles what confirm left pending. null: nothing runs (a confirm that saves nothing).
   */
  onOutcome: OutcomeHook | null = (tx, next, kind, now) => settlePendingSave(deps, tx, next, kind, now),
): Promise<PaymentRecord> {
  if (outcome.kind === 'pending') return payment;
  const decision = decideTransition(payment.status, trigger, {
    hasPaymentMethodData: true,
    captureMethod: payment.captureMethod,
    railResult: outcome.kind,
  });
  if (!decision.allowed) {
    throw new Error(`no transition from ${payment.status} on ${trigger} for a ${outcome.kind} rail answer`);
  }
  const now = deps.clock.now();
  const patch = patchFor(payment, outcome, decision.to, now, authorizationValidityOf(deps, payment));
  if (onOutcome === null) {
    // One storage operation (one statement on PostgreSQL) while nothing else changed the payment since it was read:
    // the attempt's answer and the event are then those of the payment as this change leaves it. Otherwise the
    // transaction below applies the answer to the payment as stored.
    const expected = patchedPayment(payment, patch);
    const eventType = PAYMENT_EVENT_FOR_STATUS[expected.status];
    const event = eventType === undefined ? undefined : outboxEventOf(deps, paymentEvent(expected, eventType), now);
    const changed = await deps.store.payments.updatePaymentIfVersionWithEvent(payment, patch, attemptPatchFor(expected, outcome, now), event);
    if (changed !== undefined) return changed;
  }
  const updated = await deps.store.transaction(async (tx) => {
    let next = await tx.payments.updatePaymentIfStatus(payment, payment.paymentId, [payment.status], patch);
    if (next !== undefined && onOutcome !== null) next = await onOutcome(tx, next, outcome.kind, now);
    if (next !== undefined) {
      await recordAttemptOutcome(tx, next, outcome, now);
      await recordPaymentEvent(deps, tx, next, now);
    }
    return next;
  });
  if (updated !== undefined) return updated;
  const current = await deps.store.payments.findPayment(payment, payment.paymentId);
  if (current === undefined) throw new Error(`payment ${payment.paymentId} vanished`);
  return current;
}
