import type { IncrementalAuthorizationRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail } from '../shared/rail-call';
import { DEFAULT_RECOVERY_POLICY } from '../shared/deps';
import type { JsonObject } from '../../../../protocol/api/payments';
import { railAdapterOf } from './authorization-validity';
import { requireManualCaptureOperation } from './manual-capture';
import { LOST, withCurrentPayment } from './open-authorization';
import { recordPaymentEvent } from './payment-outcome';
import { decideTransition } from './payment-transitions';

/**
 * POST /payments/{payment_id}/incremental_authorization (secret key), on a requires_capture payment of a rail with
 * manual capture. `amount` is the new total authorized amount (spec), above the one authorized now (else ERR_2003).
 * The rail is asked; granted, the payment's amount and amount_capturable become the new total (status stays
 * requires_capture, event payment_authorized); refused, ERR_4015 and nothing changes. A rail that does not answer
 * in time leaves the authorization as it was (the payment is returned unchanged). One increase at a time: while one
 * is at the rail, another answers ERR_4003 (its claim is in railState, with a lease for a request that died).
 */
export async function incrementalAuthorization(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: IncrementalAuthorizationRequest,
): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (payment) => {
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
    const inProgress = increaseInProgress(payment, now);
    if (inProgress !== undefined) {
      throw new ApiError('ERR_4003', `An incremental authorization of this payment (to ${inProgress.amount}) is in progress; retry once it has finished.`, {
        tryLater: true,
      });
    }
    // Claimed before the rail is asked: of two concurrent increases only one reaches the rail, so the rail cannot take
    // them in one order and the payment record them in the other. A claim left by a crash lapses with its lease.
    const marker: IncreaseMarker = {
      token: deps.ids.secret(20),
      amount: body.amount,
      lease_expires_at: new Date(now.getTime() + increaseLeaseMs(deps)).toISOString(),
    };
    const claimed = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
      railState: { ...(payment.railState ?? {}), [IN_PROGRESS]: marker as unknown as JsonObject },
      updatedAt: now,
    });
    if (claimed === undefined) return LOST;
    const attempts = await deps.store.attempts.listAttempts(auth, paymentId);
    const call = await callRail(deps, () =>
      increment({
        accountId: auth.accountId,
        mode: auth.mode,
        paymentId,
        railReference: payment.railReference,
        originalAmount: attempts[attempts.length - 1]?.amount ?? payment.amount,
        currentAmount: payment.amount,
        newAmount: body.amount,
        currency: payment.currency,
        now,
      }),
    );
    const granted = call.kind === 'answered' && call.answer.kind !== 'declined';
    const settled = await settleIncrease(deps, auth, paymentId, marker.token, granted ? body.amount : undefined, deps.clock.now());
    if (call.kind === 'answered' && call.answer.kind === 'declined') {
      throw new ApiError('ERR_4015', `The rail refused to raise the authorization to ${body.amount}: ${call.answer.errorMessage}.`, { fieldName: 'amount' });
    }
    return settled;
  });
}

/** The railState member that marks an increase asked of the rail and not yet recorded. */
const IN_PROGRESS = 'incremental_authorization_in_progress';

interface IncreaseMarker {
  /** Which request set it: only that request clears it or records its answer. */
  token: string;
  amount: number;
  lease_expires_at: string;
}

/** How long a claim holds when its request died: the rail call's time limit, twice. */
function increaseLeaseMs(deps: CoreDeps): number {
  return 2 * (deps.recovery ?? DEFAULT_RECOVERY_POLICY).railCallTimeoutMs;
}

/**
 * Capture and cancel wait for an increase at the rail (ERR_4003 while one is in progress): settled meanwhile, the
 * payment could no longer take the total the rail may be granting, and the rail would hold an authorization the
 * payment never settles. Their writes are version-checked, so an increase claimed after they read is seen on their
 * next round.
 */
export function refuseWhileIncreaseInProgress(payment: PaymentRecord, now: Date, operation: 'capture' | 'cancel'): void {
  const inProgress = increaseInProgress(payment, now);
  if (inProgress !== undefined) {
    throw new ApiError('ERR_4003', `You cannot ${operation} this payment while an incremental authorization (to ${inProgress.amount}) is in progress; retry once it has finished.`, {
      tryLater: true,
    });
  }
}

/** The increase in progress on the payment, unless none is or its lease has lapsed (its request died). */
function increaseInProgress(payment: PaymentRecord, now: Date): IncreaseMarker | undefined {
  const marker = payment.railState?.[IN_PROGRESS] as IncreaseMarker | undefined;
  if (marker == null || typeof marker !== 'object') return undefined;
  return Date.parse(marker.lease_expires_at) > now.getTime() ? marker : undefined;
}

function withoutMarker(railState: JsonObject | null): JsonObject | null {
  if (railState === null) return null;
  const rest = { ...railState };
  delete rest[IN_PROGRESS];
  return Object.keys(rest).length === 0 ? null : rest;
}

/**
 * Records the rail's answer and clears this request's claim, on the payment as it is now (a write in between, a
 * capture's for one, is read again). `amount`: the total the rail granted, applied while the payment can still take
 * it; undefined: nothing granted, only the claim is cleared. A claim that is no longer this request's (its lease lapsed
 * and another increase took over) leaves the payment to that one.
 */
async function settleIncrease(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  token: string,
  amount: number | undefined,
  now: Date,
): Promise<PaymentRecord> {
  return withCurrentPayment(deps, auth, paymentId, async (current) => {
    const marker = current.railState?.[IN_PROGRESS] as IncreaseMarker | undefined;
    if (marker?.token !== token) return current;
    const decision =
      amount === undefined
        ? undefined
        : decideTransition(current.status, 'incremental_authorization', {
            hasPaymentMethodData: true,
            captureMethod: current.captureMethod,
            increment: { authorized: current.amount, requested: amount },
          });
    const railState = withoutMarker(current.railState);
    if (amount === undefined || decision === undefined || !decision.allowed) {
      const cleared = await deps.store.payments.updatePaymentIfVersion(auth, paymentId, current.version, { railState, updatedAt: now });
      return cleared ?? LOST;
    }
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
      return next;
    });
  });
}
