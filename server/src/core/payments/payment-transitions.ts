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
  | 'recovery_deadline';

/** What the rail said, as the table sees it. */
export type RailResultKind = 'authorized' | 'declined' | 'customer_action' | 'pending';

export type TransitionCondition =
  | 'always'
  | 'without_payment_method_data'
  | 'with_payment_method_data'
  | 'authorized_with_automatic_capture'
  | 'authorized_with_manual_capture'
  | 'declined'
  | 'customer_action_required';

export interface TransitionFacts {
  hasPaymentMethodData: boolean;
  captureMethod: CaptureMethod;
  railResult?: RailResultKind;
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
};
