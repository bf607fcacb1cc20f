import type { CapturePaymentRequest } from '../../../../protocol/api/payment-ops';
import type { PaymentResponse } from '../../../../protocol/api/payments';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentCaptureRecord, PaymentRecord } from '../../storage/payments/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { callRail } from '../shared/rail-call';
import { railAdapterOf } from './authorization-validity';
import { refuseWhileIncreaseInProgress, withoutIncreaseClaim } from './incremental-authorization';
import { requireManualCaptureOperation } from './manual-capture';
import { findCurrentPaymentOrThrow, LOST, withCurrentPayment } from './open-authorization';
import { latestAttemptOf } from './payment-attempts';
import { decideTransition } from './payment-transitions';
import { paymentCustomerDetails } from './payment-customer';
import { toPaymentResponse } from './payment-view';
import { cancelPostCaptureInProgress, capturesInProgress, voidInProgress, withCapture } from './rail-hold-changes';
import { holdChangeLease, recoverHoldChanges, settleCapture } from './settle-hold-change';

/**
 * POST /payments/{payment_id}/capture (secret key). Spec Confirm rule 3: amount_to_capture <= amount_capturable,
 * the whole amount_capturable when omitted; a payment that is fully captured or not capturable is refused
 * (ERR_4003, also on rails that capture as they authorize). A capture of the whole authorized amount makes the
 * payment succeeded; a smaller one makes it partially_captured (capture_method manual, or refund_uncaptured_amount:
 * the rest is released) or partially_captured_and_capturable (manual_multiple).
 *
 * The rail captures (docs/capture.md, "The rail"): the capture is first recorded `pending` under its capture id, its
 * amount (and what it releases) taken from amount_capturable in a version-checked write, so concurrent captures
 * never ask the rail for more than was capturable. Then the rail is asked under the capture id, and its answer is
 * recorded with the payment's change and event in one transaction. Refused by the rail: the payment is as it was and
 * the request answers ERR_4003 with the rail's reason. No answer in time: the payment is answered as it stands (the
 * capture `pending`, nothing captured yet) and recovery asks the rail later (settle-hold-change.ts). A capture that
 * releases the rest waits while other captures of the payment are at the rail (ERR_4003, retry later).
 */
export async function capturePayment(deps: CoreDeps, auth: AuthContext, paymentId: string, body: CapturePaymentRequest): Promise<PaymentRecord> {
  // Derived from the Idempotency-Key in a keyed request: its re-run (after a crash, or a 5xx that released the key)
  // finds the capture it reserved and answers from it instead of capturing again.
  const requestReference = deps.ids.id('holdChangeRequest');
  const reserved = await withCurrentPayment(deps, auth, paymentId, async (payment) => {
    // A capture or void whose request died is settled first, so what it did counts here.
    if ((await recoverHoldChanges(deps, payment)) !== payment) return LOST;
    const own = (await deps.store.captures.listCaptures(auth, paymentId)).find((capture) => capture.requestReference === requestReference);
    if (own !== undefined) return { answered: own, payment };
    requireManualCaptureOperation(auth, payment, 'capture');
    const atRail = Object.values(capturesInProgress(payment));
    if (voidInProgress(payment) !== undefined) {
      throw new ApiError('ERR_4003', 'You cannot capture this payment while its void is in progress at the rail; retry once it has finished.', { tryLater: true });
    }
    if (cancelPostCaptureInProgress(payment) !== undefined) {
      throw new ApiError('ERR_4003', 'You cannot capture this payment while its cancel after capture is in progress at the rail; retry once it has finished.', { tryLater: true });
    }
    if (payment.amountCapturable === 0 && atRail.length > 0) {
      throw new ApiError('ERR_4003', 'A capture of the rest of this payment is in progress at the rail; retry once it has finished.', { tryLater: true });
    }
    const amount = body.amount_to_capture ?? payment.amountCapturable;
    if (amount < 1) throw new ApiError('ERR_2003', 'amount_to_capture must be at least 1.', { fieldName: 'amount_to_capture' });
    if (amount > payment.amountCapturable) {
      throw new ApiError('ERR_4014', `amount_to_capture ${amount} exceeds the amount_capturable of this payment (${payment.amountCapturable}).`, {
        fieldName: 'amount_to_capture',
      });
    }
    // What the payment will have captured once this and the captures already at the rail are taken.
    const capturedTotal = (payment.amountReceived ?? 0) + atRail.reduce((sum, entry) => sum + entry.amount, 0) + amount;
    const releaseRest = payment.captureMethod !== 'manual_multiple' || body.refund_uncaptured_amount === true;
    // A capture that releases the rest tells the rail to close the authorization and release what it leaves: the
    // captures still at the rail could then be refused there, or the release take money they capture. It waits for
    // them. (A capture of exactly the rest releases nothing: concurrent captures that split it are all taken.)
    if (atRail.length > 0 && releaseRest) {
      throw new ApiError('ERR_4003', 'You cannot make a capture that releases the rest of this payment while a capture is in progress at the rail; retry once it has finished.', {
        tryLater: true,
      });
    }
    const decision = decideTransition(payment.status, 'capture', {
      hasPaymentMethodData: true,
      captureMethod: payment.captureMethod,
      capture: { amount: payment.amount, capturedTotal, releaseRest },
    });
    if (!decision.allowed) throw new ApiError('ERR_4003', `You cannot capture this payment because it has status ${payment.status}.`);
    const now = deps.clock.now();
    refuseWhileIncreaseInProgress(payment, now, 'capture');
    const capture = capturingRail(deps, payment);

    return deps.store.transaction(async (tx) => {
      const attempt = await latestAttemptOf(tx, payment);
      const sequence = (await tx.captures.listCaptures(auth, paymentId)).length + 1;
      // Hyperswitch's capture id, `<attempt_id>_<capture_sequence>`: also the capture's reference on the rail.
      const captureId = `${attempt.attemptId}_${sequence}`;
      const releases = releaseRest ? payment.amountCapturable - amount : 0;
      const amountCapturable = payment.amountCapturable - amount - releases;
      const entry = { attempt_id: attempt.attemptId, request_reference: requestReference, amount, releases, final: amountCapturable === 0, lease_expires_at: holdChangeLease(deps, now) };
      const next = await tx.payments.updatePaymentIfVersion(auth, paymentId, payment.version, {
        amountCapturable,
        railState: withCapture(withoutIncreaseClaim(payment.railState), captureId, entry),
        updatedAt: now,
      });
      if (next === undefined) return LOST;
      const record: PaymentCaptureRecord = {
        accountId: auth.accountId,
        mode: auth.mode,
        captureId,
        paymentId,
        attemptId: attempt.attemptId,
        captureSequence: sequence,
        status: 'pending',
        amount,
        currency: payment.currency,
        connector: payment.connector,
        connectorCaptureId: null,
        errorCode: null,
        errorMessage: null,
        requestReference,
        createdAt: now,
      };
      await tx.captures.insertCapture(record);
      return { payment: next, capture: record, final: entry.final, rail: capture };
    });
  });

  if ('answered' in reserved) return answerOwnCapture(reserved.answered, reserved.payment);
  const { payment, capture, final, rail } = reserved;
  const call = await callRail(deps, () =>
    rail({
      accountId: auth.accountId,
      mode: auth.mode,
      paymentId,
      attemptId: capture.attemptId,
      captureId: capture.captureId,
      railReference: payment.railReference,
      amount: capture.amount,
      authorizedAmount: payment.amount,
      final,
      currency: payment.currency,
      now: deps.clock.now(),
    }),
  );
  // No answer: nothing is claimed; the capture stays pending until recovery learns what the rail did.
  if (call.kind === 'no_answer') return findCurrentPaymentOrThrow(deps, auth, paymentId);
  const settled = await settleCapture(deps, auth, paymentId, capture.captureId, call.answer);
  if (call.answer.kind === 'declined') throw captureRefused(capture.amount, call.answer.errorCode, call.answer.errorMessage);
  return settled;
}

function captureRefused(amount: number, errorCode: string | null, errorMessage: string | null): ApiError {
  return new ApiError('ERR_4003', `The rail refused to capture ${amount} of this payment (${errorCode}: ${errorMessage}); the payment is unchanged.`);
}

/**
 * A re-run of the request that reserved `capture` answers as that request would have: the payment as it stands when
 * the capture was taken or is still at the rail (recovery settles it once its lease lapses), the rail's refusal
 * when it was refused.
 */
function answerOwnCapture(capture: PaymentCaptureRecord, payment: PaymentRecord): PaymentRecord {
  if (capture.status === 'failed') throw captureRefused(capture.amount, capture.errorCode, capture.errorMessage);
  return payment;
}

/** The rail's capture call for this payment; a rail that authorizes without capturing but cannot be asked: ERR_4003. */
function capturingRail(deps: CoreDeps, payment: PaymentRecord): NonNullable<RailAdapter['capture']> {
  const adapter = railAdapterOf(deps, payment);
  const capture = adapter?.capture?.bind(adapter);
  if (capture === undefined) throw new ApiError('ERR_4003', `You cannot capture this payment: the ${payment.rail ?? 'payment'} rail takes no captures.`);
  return capture;
}

/** The capture as the API answers it: the payment with its stored customer (spec: "retrieve and capture responses"). */
export async function capturePaymentResponse(
  deps: CoreDeps,
  auth: AuthContext,
  paymentId: string,
  body: CapturePaymentRequest,
): Promise<PaymentResponse> {
  const payment = await capturePayment(deps, auth, paymentId, body);
  const response = toPaymentResponse(payment);
  response.customer = await paymentCustomerDetails(deps, payment);
  return response;
}
