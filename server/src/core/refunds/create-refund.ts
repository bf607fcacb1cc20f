import type { CreateRefundRequest } from '../../../../protocol/api/refunds';
import type { RailAdapter } from '../../rails/rail-adapter';
import type { PaymentRecord } from '../../storage/payments/records';
import type { RefundRecord } from '../../storage/refunds/records';
import { provisionedAdapter } from '../accounts/account-settings';
import type { AuthContext } from '../auth/auth-context';
import { fingerprint } from '../shared/canonical-json';
import type { CoreDeps } from '../shared/deps';
import { callRailAfterWrite } from '../shared/rail-call';
import { ApiError } from '../shared/errors';
import { findCurrentPaymentOrThrow } from '../payments/open-authorization';
import { refuseWhileCancellingAfterCapture } from '../payments/rail-hold-changes';
import { applyRefundOutcome } from './refund-outcome';
import { decideRefundTransition, REFUNDABLE_PAYMENT_STATUSES } from './refund-transitions';

/** The adapter's refund call, bound, beside what callRailAfterWrite reads of the adapter. */
type RefundingRail = Required<Pick<RailAdapter, 'refund'>> & Pick<RailAdapter, 'remembersInRailStore'>;

/** Thrown inside the create transaction to roll back the reservation when another create took the refund_id. */
class RefundIdTaken extends Error {}

/**
 * POST /refunds (secret key). refund_id gives idempotency (api-conventions §5): the same id with the same body
 * returns the stored refund; another body is refused with ERR_4009, also when the two creates run at once. The refund
 * is stored `pending` and its amount reserved on the payment in one transaction (a conditional update: concurrent
 * refunds never exceed the captured amount, and never take what the payment's opened, challenged, lost or accepted
 * disputes hold: ERR_4008), then the rail is asked and its answer applied with the refund's event.
 */
export async function createRefund(deps: CoreDeps, auth: AuthContext, body: CreateRefundRequest): Promise<RefundRecord> {
  const requestFingerprint = fingerprint(body);
  // Without a refund_id, under an Idempotency-Key the id is derived from the request (kernel/ids.ts): a re-run after a
  // crash that followed the commit finds its refund here, before what is left to refund, which counts it, is read.
  const refundId = body.refund_id ?? deps.ids.id('refund');
  const taken = async () => {
    const existing = await deps.store.refunds.findRefund(auth, refundId);
    return existing && replayOrConflict(existing, requestFingerprint);
  };
  const replayed = await taken();
  if (replayed !== undefined) return replayed;
  try {
    return await createNewRefund(deps, auth, body, refundId, requestFingerprint);
  } catch (error) {
    // A concurrent create with this refund_id committed after the look-up above and took what was refundable, so this
    // one was refused for the amount (ERR_4008) or for a status its refund left: its refund answers for this request.
    if (error instanceof ApiError && (error.code === 'ERR_4008' || error.code === 'ERR_4003')) {
      const replayedLate = await taken();
      if (replayedLate !== undefined) return replayedLate;
    }
    throw error;
  }
}

/** A refund under a refund_id not seen yet (or none). */
async function createNewRefund(deps: CoreDeps, auth: AuthContext, body: CreateRefundRequest, refundId: string, requestFingerprint: string): Promise<RefundRecord> {
  // No rail of the account refunds in this mode (every live refund today): refused before anything is looked up.
  if (!auth.account.settings.rails.some((rail) => rail.capabilities[auth.mode].refunds)) throw refundsUnavailable(auth, null);

  const payment = await findCurrentPaymentOrThrow(deps, auth, body.payment_id, 'payment_id');
  const decision = decideRefundTransition(null, 'create', { paymentStatus: payment.status });
  if (!decision.allowed) throw notRefundable(payment);
  refuseWhileCancellingAfterCapture(payment, 'refund');
  const rail = refundingRail(deps, auth, payment);

  const held = await heldAmounts(deps, auth, payment);
  const refundable = (payment.amountReceived ?? 0) - held.refunded - held.disputed;
  const amount = body.amount ?? refundable;
  if (amount <= 0 || amount > refundable) throw overAmount(payment, amount, refundable, held.disputed);

  const now = deps.clock.now();
  const refund: RefundRecord = {
    accountId: auth.accountId,
    mode: auth.mode,
    refundId,
    paymentId: payment.paymentId,
    profileId: payment.profileId,
    status: decision.to,
    amount,
    currency: payment.currency,
    reason: body.reason ?? null,
    metadata: body.metadata ?? null,
    refundType: body.refund_type ?? 'instant',
    rail: payment.rail,
    connector: payment.connector,
    railReference: null,
    errorCode: null,
    errorMessage: null,
    unifiedCode: null,
    unifiedMessage: null,
    requestFingerprint,
    createdAt: now,
    updatedAt: now,
  };

  // Resolves once committed, before it is durable (`durable`): as a confirm's claim (core/payments/confirm-payment.ts).
  let reserved: boolean;
  let reservationDurable: Promise<void>;
  try {
    ({ result: reserved, durable: reservationDurable } = await deps.store.transactionDurableLater(async (tx) => {
      if (!(await tx.refunds.reserveRefundAmount(auth, payment.paymentId, amount, REFUNDABLE_PAYMENT_STATUSES))) return false;
      refuseWhileCancellingAfterCapture(await tx.payments.findPayment(auth, payment.paymentId), 'refund');
      if ((await tx.refunds.insertRefund(refund)) === 'duplicate') throw new RefundIdTaken();
      return true;
    }));
  } catch (error) {
    if (!(error instanceof RefundIdTaken)) throw error;
    // A concurrent create with this refund_id won; its refund answers for this request too.
    const existing = await deps.store.refunds.findRefund(auth, refund.refundId);
    if (existing === undefined) throw new Error(`refund ${refund.refundId} reported duplicate but not found`);
    return replayOrConflict(existing, requestFingerprint);
  }
  if (!reserved) {
    // Another refund (or a status change) got there first: say which rule now stops this one.
    const current = (await deps.store.payments.findPayment(auth, payment.paymentId)) ?? payment;
    if (!decideRefundTransition(null, 'create', { paymentStatus: current.status }).allowed) throw notRefundable(current);
    const nowHeld = await heldAmounts(deps, auth, current);
    throw overAmount(current, amount, (current.amountReceived ?? 0) - nowHeld.refunded - nowHeld.disputed, nowHeld.disputed);
  }

  const call = await callRailAfterWrite(deps, rail, () => reservationDurable, () => rail.refund({
    accountId: auth.accountId,
    mode: auth.mode,
    refundId: refund.refundId,
    paymentId: payment.paymentId,
    paymentReference: payment.railReference,
    amount,
    currency: payment.currency,
    reason: refund.reason,
    now,
  }));
  // No answer: the refund stays pending and recovery asks the rail (or sends it again) under its refund_id. The answer
  // is the pending refund itself: acknowledged only once it is durable.
  if (call.kind === 'no_answer') {
    await reservationDurable;
    return refund;
  }
  const settled = await applyRefundOutcome(deps, refund, call.answer);
  // Covered by the outcome's own sync when it wrote; this also refuses to answer for a refund whose COMMIT failed.
  await reservationDurable;
  return settled;
}

/**
 * The rail call that refunds this payment, when the account's capability data allows refunds on the payment's rail
 * in this mode (api-conventions §8); capable but no refunding adapter wired: ERR_3010.
 */
function refundingRail(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): RefundingRail {
  const settings = auth.account.settings.rails.find((rail) => rail.rail === payment.rail);
  if (settings === undefined || !settings.capabilities[auth.mode].refunds) throw refundsUnavailable(auth, payment.rail);
  const adapter = provisionedAdapter(settings, deps.rails, auth.mode);
  const refund = adapter?.refund;
  if (adapter === undefined || refund === undefined) {
    throw new ApiError('ERR_3010', `The ${settings.rail} rail is not provisioned for ${auth.mode} refunds on this account yet.`);
  }
  return { refund: refund.bind(adapter), remembersInRailStore: adapter.remembersInRailStore };
}

/**
 * Live: ERR_4011 (spec "Behaviour of groups that are not live today" 1: no enabled rail refunds live payments).
 * Test mode on a rail without the refunds capability: ERR_4030.
 */
function refundsUnavailable(auth: AuthContext, rail: string | null): ApiError {
  if (auth.mode === 'live') {
    return new ApiError('ERR_4011', 'No enabled rail refunds live payments; arrange this refund outside the service.');
  }
  const subject = rail === null ? 'No rail of this account refunds' : `The ${rail} rail does not refund`;
  return new ApiError('ERR_4030', `${subject} ${auth.mode} payments on this account.`);
}

function notRefundable(payment: PaymentRecord): ApiError {
  return new ApiError(
    'ERR_4003',
    `This payment could not be refunded because it has status ${payment.status}. The expected status is ${REFUNDABLE_PAYMENT_STATUSES.join(' or ')}.`,
  );
}

/** What the payment's non-failed refunds took, and what its disputes hold (opened, challenged, lost, accepted). */
async function heldAmounts(deps: CoreDeps, auth: AuthContext, payment: PaymentRecord): Promise<{ refunded: number; disputed: number }> {
  return {
    refunded: (await deps.store.refunds.findRefundedAmount(auth, payment.paymentId)) ?? 0,
    disputed: (await deps.store.disputes.findDisputedAmount(auth, payment.paymentId)) ?? 0,
  };
}

function overAmount(payment: PaymentRecord, amount: number, refundable: number, disputed: number): ApiError {
  // Money a dispute holds went back to the customer (or may): refunding it would pay them twice (Stripe: charge_disputed).
  const disputes = disputed > 0 ? `; ${disputed} of the payment is held by its disputes and cannot be refunded` : '';
  return new ApiError(
    'ERR_4008',
    `The refund amount ${amount} exceeds what is left to refund on payment ${payment.paymentId} (${Math.max(refundable, 0)})${disputes}.`,
    { fieldName: 'amount' },
  );
}

function replayOrConflict(existing: RefundRecord, requestFingerprint: string): RefundRecord {
  if (existing.requestFingerprint !== requestFingerprint) {
    throw new ApiError('ERR_4009', 'refund_id already exists with a different request body.', {
      fieldName: 'refund_id',
    });
  }
  return existing;
}
