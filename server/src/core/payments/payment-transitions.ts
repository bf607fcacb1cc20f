/**
 * The payment state machine as one table (from, trigger, condition, to). Anything not in the table is refused.
 * Statuses are Hyperswitch v1 names; the rows the spec leaves open are listed in docs/open-points.md.
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { CaptureMethod } from '../../../../protocol/api/payments';
import { decide, statusesFiring, type Decision, type Transition } from '../shared/transition-table';

export type PaymentTrigger =
  /** POST /payments. */
  | 'create'
  /** POST /payments/{id}/confirm, or create with confirm: true. Claims the payment before the rail is called. */
  | 'confirm'
  /** The rail answered the authorization started by confirm. */
  | 'rail_result'
  /** A later look at the rail (retrieve) for a payment that waits for the customer. */
  | 'rail_sync'
  /** POST /payments/{id}/cancel. */
  | 'cancel'
  /** Recovery gave up asking the rail about a payment in processing (RecoveryPolicy.deadlineMs). */
  | 'recovery_deadline'
  /** POST /payments/{id}/capture (manual capture). */
  | 'capture'
  /** POST /payments/{id}/cancel_post_capture. */
  | 'cancel_post_capture'
  /** POST /payments/{id}/incremental_authorization. */
  | 'incremental_authorization'
  /** POST /payments/{id}/extend_authorization. */
  | 'extend_authorization'
  /** The open authorization of a manual-capture payment reached its expiry (seen on the next read or operation). */
  | 'authorization_expiry';

/** What the rail said, as the table sees it. */
export type RailResultKind = 'authorized' | 'declined' | 'customer_action' | 'pending';

export type TransitionCondition =
  | 'always'
  | 'without_payment_method_data'
  | 'with_payment_method_data'
  | 'authorized_with_automatic_capture'
  | 'authorized_with_manual_capture'
  | 'declined'
  | 'customer_action_required'
  | 'capture_completes_amount'
  | 'capture_releases_rest'
  | 'capture_keeps_rest'
  | 'without_refunds_or_disputes'
  | 'amount_above_authorized';

export interface TransitionFacts {
  hasPaymentMethodData: boolean;
  captureMethod: CaptureMethod;
  railResult?: RailResultKind;
  /** capture: the payment's amount, what it has captured including this capture, and whether the rest is released. */
  capture?: { amount: number; capturedTotal: number; releaseRest: boolean };
  /** cancel_post_capture: the sum of the payment's non-failed refunds. */
  refunded?: number;
  /** cancel_post_capture: what the payment's opened, challenged, lost or accepted disputes hold. */
  disputed?: number;
  /** incremental_authorization: the authorized amount now and the total asked for. */
  increment?: { authorized: number; requested: number };
}

export type PaymentTransition = Transition<PaymentStatus, PaymentTrigger, TransitionCondition>;

const AUTOMATIC_CAPTURE: readonly CaptureMethod[] = ['automatic', 'sequential_automatic'];

export const TRANSITION_CONDITIONS: Record<TransitionCondition, (facts: TransitionFacts) => boolean> = {
  always: () => true,
  without_payment_method_data: (facts) => !facts.hasPaymentMethodData,
  with_payment_method_data: (facts) => facts.hasPaymentMethodData,
  authorized_with_automatic_capture: (facts) =>
    facts.railResult === 'authorized' && AUTOMATIC_CAPTURE.includes(facts.captureMethod),
  authorized_with_manual_capture: (facts) =>
    facts.railResult === 'authorized' && !AUTOMATIC_CAPTURE.includes(facts.captureMethod),
  declined: (facts) => facts.railResult === 'declined',
  customer_action_required: (facts) => facts.railResult === 'customer_action',
  capture_completes_amount: (facts) => facts.capture !== undefined && facts.capture.capturedTotal >= facts.capture.amount,
  capture_releases_rest: (facts) => facts.capture !== undefined && facts.capture.capturedTotal < facts.capture.amount && facts.capture.releaseRest,
  capture_keeps_rest: (facts) => facts.capture !== undefined && facts.capture.capturedTotal < facts.capture.amount && !facts.capture.releaseRest,
  without_refunds_or_disputes: (facts) => facts.refunded === 0 && facts.disputed === 0,
  amount_above_authorized: (facts) => facts.increment !== undefined && facts.increment.requested > facts.increment.authorized,
};

export const PAYMENT_TRANSITIONS: readonly PaymentTransition[] = [
  // Create (api-conventions §6): requires_confirmation when payment_method_data is given, else requires_payment_method.
  { from: null, trigger: 'create', condition: 'without_payment_method_data', to: 'requires_payment_method' },
  { from: null, trigger: 'create', condition: 'with_payment_method_data', to: 'requires_confirmation' },
  // Confirm claims the payment (persisted before the rail is called), so a second confirm finds it taken.
  { from: 'requires_payment_method', trigger: 'confirm', condition: 'with_payment_method_data', to: 'processing' },
  { from: 'requires_confirmation', trigger: 'confirm', condition: 'with_payment_method_data', to: 'processing' },
  // The rail's answer to the authorization.
  { from: 'processing', trigger: 'rail_result', condition: 'authorized_with_automatic_capture', to: 'succeeded' },
  { from: 'processing', trigger: 'rail_result', condition: 'authorized_with_manual_capture', to: 'requires_capture' },
  { from: 'processing', trigger: 'rail_result', condition: 'declined', to: 'failed' },
  { from: 'processing', trigger: 'rail_result', condition: 'customer_action_required', to: 'requires_customer_action' },
  // Recovery (docs/reliability.md): no answer by the deadline puts the payment before an operator; a later answer
  // (force_sync) still settles it, as the rail's answer to the confirm would have.
  { from: 'processing', trigger: 'recovery_deadline', condition: 'always', to: 'requires_merchant_action' },
  { from: 'requires_merchant_action', trigger: 'rail_result', condition: 'authorized_with_automatic_capture', to: 'succeeded' },
  { from: 'requires_merchant_action', trigger: 'rail_result', condition: 'authorized_with_manual_capture', to: 'requires_capture' },
  { from: 'requires_merchant_action', trigger: 'rail_result', condition: 'declined', to: 'failed' },
  { from: 'requires_merchant_action', trigger: 'rail_result', condition: 'customer_action_required', to: 'requires_customer_action' },
  // A payment waiting for the customer (UPI collect) resolves when the rail says so.
  { from: 'requires_customer_action', trigger: 'rail_sync', condition: 'authorized_with_automatic_capture', to: 'succeeded' },
  { from: 'requires_customer_action', trigger: 'rail_sync', condition: 'authorized_with_manual_capture', to: 'requires_capture' },
  { from: 'requires_customer_action', trigger: 'rail_sync', condition: 'declined', to: 'failed' },
  // Cancel (spec States table; Hyperswitch's status name `cancelled`, api-conventions §6).
  { from: 'requires_payment_method', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'requires_confirmation', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'requires_capture', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'requires_customer_action', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  // Manual capture (spec Confirm rule 3, States table; Hyperswitch statuses). A capture of the whole authorized
  // amount succeeds; a smaller one either releases the rest (capture_method manual, or refund_uncaptured_amount) or,
  // with manual_multiple, keeps it capturable.
  { from: 'requires_capture', trigger: 'capture', condition: 'capture_completes_amount', to: 'succeeded' },
  { from: 'requires_capture', trigger: 'capture', condition: 'capture_releases_rest', to: 'partially_captured' },
  { from: 'requires_capture', trigger: 'capture', condition: 'capture_keeps_rest', to: 'partially_captured_and_capturable' },
  { from: 'partially_captured_and_capturable', trigger: 'capture', condition: 'capture_completes_amount', to: 'succeeded' },
  { from: 'partially_captured_and_capturable', trigger: 'capture', condition: 'capture_releases_rest', to: 'partially_captured' },
  { from: 'partially_captured_and_capturable', trigger: 'capture', condition: 'capture_keeps_rest', to: 'partially_captured_and_capturable' },
  // Cancel post capture (a void of captured funds before settlement): only while nothing was refunded (Hyperswitch)
  // and no dispute holds money (opened, challenged, lost, accepted: the customer's bank has it or may take it).
  { from: 'succeeded', trigger: 'cancel_post_capture', condition: 'without_refunds_or_disputes', to: 'cancelled_post_capture' },
  { from: 'partially_captured', trigger: 'cancel_post_capture', condition: 'without_refunds_or_disputes', to: 'cancelled_post_capture' },
  { from: 'partially_captured_and_capturable', trigger: 'cancel_post_capture', condition: 'without_refunds_or_disputes', to: 'cancelled_post_capture' },
  // Incremental authorization: the amount given is the new total; extended authorization moves the expiry only.
  { from: 'requires_capture', trigger: 'incremental_authorization', condition: 'amount_above_authorized', to: 'requires_capture' },
  { from: 'requires_capture', trigger: 'extend_authorization', condition: 'always', to: 'requires_capture' },
  // An authorization that lapses uncaptured expires (Hyperswitch `expired`); one partly captured keeps what it took.
  { from: 'requires_capture', trigger: 'authorization_expiry', condition: 'always', to: 'expired' },
  { from: 'partially_captured_and_capturable', trigger: 'authorization_expiry', condition: 'always', to: 'partially_captured' },
];

const PAYMENT_MACHINE = { rows: PAYMENT_TRANSITIONS, conditions: TRANSITION_CONDITIONS };

export function decideTransition(from: PaymentStatus | null, trigger: PaymentTrigger, facts: TransitionFacts): Decision<PaymentStatus> {
  return decide(PAYMENT_MACHINE, from, trigger, facts);
}

/** Statuses from which `trigger` can fire (for conditional updates). */
export function statusesAllowing(trigger: PaymentTrigger): PaymentStatus[] {
  return statusesFiring(PAYMENT_TRANSITIONS, trigger);
}

/**
 * The webhook event a payment status announces (Hyperswitch v1 mapping, docs/reference.md, Hyperswitch §4);
 * requires_payment_method and requires_confirmation announce nothing.
 */
export const PAYMENT_EVENT_FOR_STATUS: Partial<Record<PaymentStatus, string>> = {
  succeeded: 'payment_succeeded',
  failed: 'payment_failed',
  requires_customer_action: 'action_required',
  // Hyperswitch announces both requires_*_action statuses as action_required.
  requires_merchant_action: 'action_required',
  cancelled: 'payment_cancelled',
  cancelled_post_capture: 'payment_cancelled_post_capture',
  partially_captured: 'payment_captured',
  partially_captured_and_capturable: 'payment_captured',
  requires_capture: 'payment_authorized',
  expired: 'payment_expired',
};
