/**
 * What the manual-capture operations share: the lazy expiry of an open authorization (on the injected clock, seen
 * on the next read of the payment or operation on it), and the read-decide-write loop whose write lands only if the
 * payment is still at the version it was read in. That loop serializes the capture, void, cancel post capture and
 * authorization changes of one payment: concurrent captures never exceed amount_capturable, and of a capture and a
 * void racing, exactly one wins (the other re-reads and is refused for the status it finds).
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { AttemptStatus, PaymentRecord } from '../../storage/payments/records';
import type { Scope } from '../../kernel/store-types';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findPaymentOrThrow } from './find-payment';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition, statusesAllowing } from './payment-transitions';
import { railHoldChanging } from './rail-hold-changes';

/** A version-checked write that another write beat: read again and decide again. */
export const LOST = Symbol('payment changed since it was read');
export type Lost = typeof LOST;

/** Each lost write means another request's write landed, so the loop always progresses; this only bounds it. */
const MAX_ROUNDS = 100;

/**
 * Runs `step` on the payment as stored now (a lapsed authorization expired first) until its version-checked write
 * lands (or it answers without writing, or refuses).
 */
export async function withCurrentPayment<T>(
  deps: CoreDeps,
  scope: Scope,
  paymentId: string,
  step: (payment: PaymentRecord) => Promise<T | Lost>,
): Promise<T> {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const payment = await findCurrentPaymentOrThrow(deps, scope, paymentId);
    const result = await step(payment);
    if (result !== LOST) return result;
  }
  throw new ApiError('ERR_4003', 'The payment kept changing while this request was applied; retry.', { tryLater: true });
}

/**
 * The payment with this id, as an operation on it must see it: an open authorization past its expiry has expired
 * first (capture.md: "applied on the next read or operation"), so that a refund or a dispute of a payment whose
 * authorization lapsed unread finds it partially_captured. ERR_4001 as findPaymentOrThrow.
 */
export async function findCurrentPaymentOrThrow(deps: CoreDeps, scope: Scope, paymentId: string, fieldName?: string): Promise<PaymentRecord> {
  return expireLapsedAuthorization(deps, await findPaymentOrThrow(deps, scope, paymentId, fieldName));
}

/**
 * Expires the open authorization of a payment once its authorization_expires_at has passed: requires_capture
 * becomes `expired` (its attempt `voided`), partially_captured_and_capturable becomes `partially_captured` (it keeps
 * what it captured; its attempt `charged`); nothing is capturable any more. The change, the attempt's and the event
 * commit together. Returns the payment as it now is.
 */
export async function expireLapsedAuthorization(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  let current = payment;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const expiresAt = current.authorizationExpiresAt;
    const now = deps.clock.now();
    if (expiresAt == null || now.getTime() < expiresAt.getTime()) return current;
    // A capture or void at the rail is recorded first (its answer, or recovery's): money may be moving.
    if (railHoldChanging(current)) return current;
    const decision = decideTransition(current.status, 'authorization_expiry', { hasPaymentMethodData: true, captureMethod: current.captureMethod });
    if (!decision.allowed) return current;
    const read = current;
    const expired = await deps.store.transaction(async (tx) => {
      const next = await tx.payments.updatePaymentIfVersion(read, read.paymentId, read.version, { status: decision.to, amountCapturable: 0, updatedAt: now });
      if (next === undefined) return undefined;
      await tx.attempts.updateLatestAttempt(next, next.paymentId, { status: attemptStatusAfterExpiry(decision.to), updatedAt: now });
      await recordPaymentEvent(deps, tx, next, now);
      return next;
    });
    if (expired !== undefined) return expired;
    current = await findPaymentOrThrow(deps, read, read.paymentId);
  }
  return current;
}

/** A lapsed authorization is released as a void releases it; one partly captured has captured all it will. */
function attemptStatusAfterExpiry(paymentStatus: PaymentStatus): AttemptStatus {
  return paymentStatus === 'partially_captured' ? 'charged' : 'voided';
}

/**
 * The expiry sweep (main.ts housekeeping): expires every open authorization past its expiry, at most `batchSize` per
 * call, so their `payment_expired` (or `payment_captured`) events are written without anyone reading the payments.
 * Several instances may sweep at once: each expiry is a version-checked write. Returns how many it looked at.
 */
export async function expireLapsedAuthorizations(deps: CoreDeps, batchSize: number): Promise<number> {
  const lapsed = await deps.store.paymentList.listLapsedAuthorizations(statusesAllowing('authorization_expiry'), deps.clock.now(), batchSize);
  for (const payment of lapsed) await expireLapsedAuthorization(deps, payment);
  return lapsed.length;
}
