import type { IncrementalAuthorizationRequest } from '../../../../protocol/api/payment-ops';
import type { Scope } from '../../kernel/store-types';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail, type RailCallResult } from '../shared/rail-call';
import type { IncrementAuthorizationOutcome, NotReceived, RailAdapter } from '../../rails/rail-adapter';
import { DEFAULT_RECOVERY_POLICY } from '../shared/deps';
import type { JsonObject } from '../../../../protocol/api/payments';
import { railAdapterOf } from './authorization-validity';
import { requireManualCaptureOperation } from './manual-capture';
import { findCurrentPaymentOrThrow, LOST, type Lost, withCurrentPayment } from './open-authorization';
import { latestAttemptOf } from './payment-attempts';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';
import { capturesInProgress, refuseWhileRailHoldChanging, voidInProgress, withRailStateKey } from './rail-hold-changes';

/**
 * POST /payments/{payment_id}/incremental_authorization (secret key), on a requires_capture payment of a rail with
 * manual capture. `amount` is the new total authorized amount (spec), above the one authorized now (else ERR_2003).
 * The rail is asked under the call's own reference; granted, the payment's amount and amount_capturable become the
 * new total (status stays requires_capture, event payment_authorized); refused, ERR_4015 and nothing changes. A rail
 * that does not answer in time leaves the authorization as it was (the payment is returned unchanged) and the claim
 * in place: once its lease lapses, the rail is asked by that reference what it did (recoverIncrease). One increase at
 * a time: while one is at the rail, another answers ERR_4003 (its claim is in railState, with a lease for a request
 * that died).
 */
export async function incrementalAuthorization(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: IncrementalAuthorizationRequest,
): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
    // An increase whose request died is settled first: the rail may have granted it.
    if ((await recoverIncrease(deps, payment)) !== payment) return LOST;
    requireManualCaptureOperation(auth, payment, 'incremental_authorization');
    const decision = decideTransition(payment.status, 'incremental_authorization', {
      hasPaymentMethodData: true,
      captureMethod: payment.captureMethod,
      increment: { authorized: payment.amount, requested: body.amount },
    });
    if (!decision.allowed) {
      throw new ApiError('ERR_2003', `amount is the new total to authorize and must exceed the amount authorized now (${payment.amount}).`, {
        fieldName: 'amount',
      });
    }
    const adapter = railAdapterOf(deps, payment);
    const increment = adapter?.incrementAuthorization?.bind(adapter);
    if (increment === undefined) {
      throw new ApiError('ERR_4003', `You cannot increase the authorization of this payment: the ${payment.rail ?? 'payment'} rail does not raise authorizations.`);
    }
    const now = deps.clock.now();
    // amount_capturable becomes the new total: a capture's reservation, or a void's, would be lost.
    refuseWhileRailHoldChanging(payment, 'increase the authorization of');
    const inProgress = increaseInProgress(payment, now);
    if (inProgress !== undefined) {
      throw new ApiError('ERR_4003', `An incremental authorization of this payment (to ${inProgress.amount}) is in progress; retry once it has finished.`, {
        tryLater: true,
      });
    }
    const attempt = await latestAttemptOf(deps.store, payment);
    // Claimed before the rail is asked: of two concurrent increases only one reaches the rail, so the rail cannot take
    // them in one order and the payment record them in the other. A claim left by a crash lapses with its lease.
    const reference = increaseReference(deps, attempt.attemptId);
    const marker: IncreaseMarker = { token: deps.ids.secret(20), amount: body.amount, reference, lease_expires_at: leaseFrom(deps, now) };
    const claimed = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
      railState: withMarker(payment.railState, marker),
      updatedAt: now,
    });
    if (claimed === undefined) return LOST;
    const askRail = railAsker(deps, payment, attempt.attemptId, attempt.amount, increment);
    const call = await askRail(body.amount, payment.amount, reference);
    // No answer: the rail may still grant it. The claim stays until its lease lapses; then the rail is asked what it did.
    if (call.kind === 'no_answer') return findCurrentPaymentOrThrow(deps, auth, paymentId);
    const granted = call.answer.kind !== 'declined' ? body.amount : undefined;
    const settled = await settleIncrease(deps, auth, paymentId, askRail, attempt.attemptId, { token: marker.token, granted, railMayHold: granted });
    if (call.answer.kind === 'declined') {
      throw new ApiError('ERR_4015', `The rail refused to raise the authorization to ${body.amount}: ${call.answer.errorMessage}.`, { fieldName: 'amount' });
    }
    return settled;
  });
}

/** The rail's reference of one increase call: `<attempt_id>_inc_<random>`, each call its own. */
function increaseReference(deps: CoreDeps, attemptId: string): string {
  return `${attemptId}_inc_${deps.ids.secret(16)}`;
}

/** Asks the rail to set the authorization of `payment` to `total` under `reference`, holding `railHolds` now. */
function railAsker(deps: CoreDeps, payment: PaymentRecord, attemptId: string, originalAmount: number, increment: NonNullable<RailAdapter['incrementAuthorization']>): AskRail {
  return (total, railHolds, reference) =>
    callRail(deps, () =>
      increment({
        accountId: payment.accountId,
        mode: payment.mode,
        paymentId: payment.paymentId,
        reference,
        railReference: payment.railReference,
        originalAmount,
        currentAmount: railHolds,
        newAmount: total,
        currency: payment.currency,
        now: deps.clock.now(),
      }),
    );
}

/**
 * Recovery of an increase whose request is taken to have died (its claim's lease lapsed): the rail is asked by the
 * claim's reference what it did. Granted: the payment takes the total (amount and amount_capturable, event
 * payment_authorized, in one transaction), as the request would have recorded it; refused or unknown to the rail: the
 * claim is cleared. A rail that does not answer leaves the claim for the next read, operation or round of the recovery
 * job. A lapsed claim without a reference, on a payment no longer requires_capture, or on a rail that cannot be asked is
 * cleared. Returns the payment as it then is: `payment` itself when nothing
 * was recorded.
 */
export async function recoverIncrease(deps: CoreDeps, payment: PaymentRecord): Promise<PaymentRecord> {
  const marker = increaseMarker(payment);
  const now = deps.clock.now();
  if (marker === undefined || Date.parse(marker.lease_expires_at) > now.getTime()) return payment;
  const adapter = railAdapterOf(deps, payment);
  const lookupIncrement = adapter?.lookupIncrement?.bind(adapter);
  const increment = adapter?.incrementAuthorization?.bind(adapter);
  const reference = marker.reference;
  // A lapsed claim nothing can settle any more: written before claims had references (the capture code of then left
  // them on captured and expired payments too), on an authorization no longer open, or on a rail that cannot be
  // asked. It is cleared, or the recovery job would list the payment for good.
  if (reference === undefined || payment.status !== 'requires_capture' || lookupIncrement === undefined || increment === undefined) {
    const cleared = await deps.store.payments.updatePaymentIfVersion(payment, payment.paymentId, payment.version, { railState: withoutIncreaseClaim(payment.railState), updatedAt: now });
    return cleared ?? payment;
  }
  const looked = await callRail<IncrementAuthorizationOutcome | NotReceived>(deps, () =>
    lookupIncrement({ accountId: payment.accountId, mode: payment.mode, reference, now }),
  );
  if (looked.kind === 'no_answer') return payment;
  const attempt = await latestAttemptOf(deps.store, payment);
  const granted = looked.answer.kind === 'authorized' ? marker.amount : undefined;
  const askRail = railAsker(deps, payment, attempt.attemptId, attempt.amount, increment);
  return settleIncrease(deps, payment, payment.paymentId, askRail, attempt.attemptId, { token: marker.token, granted, railMayHold: granted });
}

/** Whether the payment's railState holds an increase's claim, live or lapsed (the recovery job lists such payments). */
export function increaseClaimed(payment: PaymentRecord): boolean {
  return increaseMarker(payment) !== undefined;
}

/** The railState member that marks an increase asked of the rail and not yet recorded. */
const IN_PROGRESS = 'incremental_authorization_in_progress';

interface IncreaseMarker {
  /** Which request set it: only that request clears it or records its answer. */
  token: string;
  /** The total asked of the rail under `reference`. */
  amount: number;
  /** The rail's reference of the call made under this claim (absent on claims written before references). */
  reference?: string;
  lease_expires_at: string;
  /**
   * Set by an increase whose claim lapsed and was taken over, once its call to the rail ended: the rail may have taken
   * that call after the holder's, so the holder sets the rail to its own total again before it settles.
   */
  reassert?: boolean;
}

/** When a claim made now lapses if its request died: after the rail call's time limit, twice. */
function leaseFrom(deps: CoreDeps, now: Date): string {
  return new Date(now.getTime() + 2 * (deps.recovery ?? DEFAULT_RECOVERY_POLICY).railCallTimeoutMs).toISOString();
}

/**
 * Capture and cancel wait for an increase at the rail (ERR_4003 while one is in progress): settled meanwhile, the
 * payment could no longer take the total the rail may be granting, and the rail would hold an authorization the
 * payment never settles. Their writes are version-checked, so an increase claimed after they read is seen on their
 * next round. They also wait for a lapsed claim still there once recoverIncrease ran (it clears what nothing can
 * settle): the rail was asked what it did and did not answer, and may have raised the authorization.
 */
export function refuseWhileIncreaseInProgress(payment: PaymentRecord, now: Date, operation: 'capture' | 'cancel'): void {
  const inProgress = increaseInProgress(payment, now);
  if (inProgress !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while an incremental authorization (to ${inProgress.amount}) is in progress; retry once it has finished.`, {
      tryLater: true,
    });
  }
  const lapsed = increaseMarker(payment);
  if (lapsed !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment until the rail says whether it raised its authorization (to ${lapsed.amount}); retry later.`, {
      tryLater: true,
    });
  }
}

/** The increase in progress on the payment, unless none is or its lease has lapsed (its request died). */
function increaseInProgress(payment: PaymentRecord, now: Date): IncreaseMarker | undefined {
  const marker = increaseMarker(payment);
  return marker !== undefined && Date.parse(marker.lease_expires_at) > now.getTime() ? marker : undefined;
}

function increaseMarker(payment: PaymentRecord): IncreaseMarker | undefined {
  const marker = payment.railState?.[IN_PROGRESS] as IncreaseMarker | undefined;
  return marker == null || typeof marker !== 'object' ? undefined : marker;
}

/**
 * railState without an increase's claim, written with a capture's or a void's reservation. They wait for a live claim
 * and for a lapsed one the rail did not answer about (refuseWhileIncreaseInProgress), so none should be left there; if
 * one is, the increase's answer, should it still come, applies nothing and has the rail set back to the payment's total
 * (afterClaimLost), instead of overwriting amount_capturable under the reservation.
 */
export function withoutIncreaseClaim(railState: JsonObject | null): JsonObject | null {
  return withRailStateKey(railState, IN_PROGRESS, undefined);
}

function withMarker(railState: JsonObject | null, marker: IncreaseMarker): JsonObject | null {
  return withRailStateKey(railState, IN_PROGRESS, marker);
}

type AskRail = (total: number, railHolds: number, reference: string) => Promise<RailCallResult<IncrementAuthorizationOutcome>>;

interface IncreaseCall {
  /** The claim the call was made under. */
  token: string;
  /** The total the rail granted, to apply; undefined: nothing to apply. */
  granted: number | undefined;
  /** The total the rail may hold since the call (it granted it); undefined: the call changed nothing there. */
  railMayHold: number | undefined;
}

type SettleStep = { kind: 'settled'; payment: PaymentRecord } | { kind: 'reassert'; payment: PaymentRecord; token: string; total: number; reference: string };

/**
 * Records the rail's answer and clears this request's claim, on the payment as it is now (a write in between, a
 * capture's for one, is read again). A granted total is applied while the payment can still take it.
 *
 * A claim whose lease lapsed while its call was at the rail may have been taken over by a later increase, and the rail
 * may take the two calls in either order. So the rail is made to hold what the payment says: the late request applies
 * nothing, and once its call has ended it has the rail set to the payment's total again, by the holder of the claim
 * (flagged with `reassert`, it asks the rail once more before it settles) or, when no claim is held, under a claim of
 * its own.
 */
async function settleIncrease(deps: CoreDeps, auth: Scope, paymentId: string, askRail: AskRail, attemptId: string, first: IncreaseCall): Promise<PaymentRecord> {
  let call = first;
  // Another round only after a re-assertion, which another increase's late answer asked for: each one ends.
  for (;;) {
    const step = await withCurrentPayment(deps, auth, paymentId, (current) => settleStep(deps, auth, current, attemptId, call, deps.clock.now()));
    if (step.kind === 'settled') return step.payment;
    const railHolds = call.railMayHold ?? step.payment.amount;
    const answer = await askRail(step.total, railHolds, step.reference);
    const refused = answer.kind === 'answered' && answer.answer.kind === 'declined';
    call = {
      token: step.token,
      // The holder applies its own grant after the re-assertion; a claim taken only to re-assert applies nothing.
      granted: step.token === call.token ? call.granted : undefined,
      railMayHold: refused ? railHolds : step.total,
    };
  }
}

async function settleStep(deps: CoreDeps, auth: Scope, current: PaymentRecord, attemptId: string, call: IncreaseCall, now: Date): Promise<SettleStep | Lost> {
  const paymentId = current.paymentId;
  const held = increaseMarker(current);
  if (held?.token !== call.token) return afterClaimLost(deps, auth, current, attemptId, call, now);
  if (held.reassert === true) {
    // A lapsed increase's call ended after this one's may have: the rail is asked for this one's total again, under a
    // lease renewed for that call and a reference of its own.
    const total = call.granted ?? current.amount;
    const reference = increaseReference(deps, attemptId);
    const renewed: IncreaseMarker = { token: held.token, amount: total, reference, lease_expires_at: leaseFrom(deps, now) };
    const next = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, current.version, {
      railState: withMarker(current.railState, renewed),
      updatedAt: now,
    });
    return next === undefined ? LOST : { kind: 'reassert', payment: next, token: held.token, total, reference };
  }
  const decision =
    call.granted === undefined
      ? undefined
      : decideTransition(current.status, 'incremental_authorization', {
          hasPaymentMethodData: true,
          captureMethod: current.captureMethod,
          increment: { authorized: current.amount, requested: call.granted },
        });
  const railState = withoutIncreaseClaim(current.railState);
  if (call.granted === undefined || decision === undefined || !decision.allowed) {
    const cleared = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, current.version, { railState, updatedAt: now });
    return cleared === undefined ? LOST : { kind: 'settled', payment: cleared };
  }
  const amount = call.granted;
  return deps.store.transaction(async (tx) => {
    const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, current.version, {
      status: decision.to,
      amount,
      amountCapturable: amount,
      railState,
      updatedAt: now,
    });
    if (next === undefined) return LOST;
    await recordPaymentEvent(deps, tx, next, now);
    return { kind: 'settled', payment: next };
  });
}

/** Whether a void or a final capture of the payment is at the rail. */
function closingAtRail(payment: PaymentRecord): boolean {
  return voidInProgress(payment) !== undefined || Object.values(capturesInProgress(payment)).some((capture) => capture.final);
}

/**
 * The claim lapsed and another increase took it over: this call's answer is not applied. If the rail may now hold
 * this call's total instead of the payment's, the holder is flagged to re-assert its total, or, with no claim held,
 * this request claims the payment and re-asserts the payment's total itself.
 */
async function afterClaimLost(deps: CoreDeps, auth: Scope, current: PaymentRecord, attemptId: string, call: IncreaseCall, now: Date): Promise<SettleStep | Lost> {
  const settled: SettleStep = { kind: 'settled', payment: current };
  // Refused at the rail, or an authorization no longer open (captured, voided, expired) or being closed (a void or a
  // final capture at the rail): nothing to re-assert, and a total sent now could reopen what the rail is closing.
  if (call.railMayHold === undefined || current.status !== 'requires_capture' || closingAtRail(current)) return settled;
  const holder = increaseInProgress(current, now);
  if (holder !== undefined) {
    if (holder.reassert === true) return settled;
    const flagged: IncreaseMarker = { ...holder, reassert: true };
    const next = await deps.store.payments.updatePaymentIfVersion(auth, current.paymentId, current.version, {
      railState: withMarker(current.railState, flagged),
      updatedAt: now,
    });
    return next === undefined ? LOST : { kind: 'settled', payment: next };
  }
  if (call.railMayHold === current.amount) return settled;
  const reference = increaseReference(deps, attemptId);
  const marker: IncreaseMarker = { token: deps.ids.secret(20), amount: current.amount, reference, lease_expires_at: leaseFrom(deps, now) };
  const claimed = await deps.store.payments.updatePaymentIfVersion(auth, current.paymentId, current.version, {
    railState: withMarker(current.railState, marker),
    updatedAt: now,
  });
  return claimed === undefined ? LOST : { kind: 'reassert', payment: claimed, token: marker.token, total: current.amount, reference };
}
