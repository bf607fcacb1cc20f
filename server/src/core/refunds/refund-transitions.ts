/**
 * The refund state machine as one table (from, trigger, condition, to). Anything not in the table is refused.
 * Statuses are the spec's (Hyperswitch v1 names); the spec shows no transitions, so every row is an open point
 * (docs/open-points.md, "States: Refund").
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { RefundStatus } from '../../../../protocol/api/refunds';
import type { RefundOutcome } from '../../rails/rail-adapter';
import { decide, type Decision, type Transition } from '../shared/transition-table';

export type RefundTrigger =
  /** POST /refunds: the refund is stored, its amount reserved on the payment, before the rail is asked. */
  | 'create'
  /** The rail answered the refund started by create, or a force_sync or the recovery job asked it about the refund. */
  | 'rail_result'
  /** Recovery gave up asking the rail about a pending refund (RecoveryPolicy.deadlineMs). */
  | 'recovery_deadline';

export type RefundCondition =
  | 'always'
  | 'payment_refundable'
  | 'rail_succeeded'
  | 'rail_failed'
  | 'rail_review';

export interface RefundFacts {
  /** The payment's status (create). */
  paymentStatus?: PaymentStatus;
  /** What the rail said (rail_result). */
  railResult?: Exclude<RefundOutcome['kind'], 'pending'>;
}

export type RefundTransition = Transition<RefundStatus, RefundTrigger, RefundCondition>;

/** Payment statuses a refund may be made on (api-conventions §6; Hyperswitch `core/refunds.rs`). */
export const REFUNDABLE_PAYMENT_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_captured'];

export const REFUND_CONDITIONS: Record<RefundCondition, (facts: RefundFacts) => boolean> = {
  always: () => true,
  payment_refundable: (facts) => facts.paymentStatus !== undefined && REFUNDABLE_PAYMENT_STATUSES.includes(facts.paymentStatus),
  rail_succeeded: (facts) => facts.railResult === 'succeeded',
  rail_failed: (facts) => facts.railResult === 'failed',
  rail_review: (facts) => facts.railResult === 'review',
};

export const REFUND_TRANSITIONS: readonly RefundTransition[] = [
  // Created pending (as in Hyperswitch); the amount is reserved on the payment in the same transaction.
  { from: null, trigger: 'create', condition: 'payment_refundable', to: 'pending' },
  // The rail's answer (the simulator answers at once).
  { from: 'pending', trigger: 'rail_result', condition: 'rail_succeeded', to: 'succeeded' },
  { from: 'pending', trigger: 'rail_result', condition: 'rail_failed', to: 'failed' },
  { from: 'pending', trigger: 'rail_result', condition: 'rail_review', to: 'review' },
  // Recovery (docs/reliability.md): a refund the rail never settled goes before an operator; its amount stays
  // reserved, since it may have been paid out.
  { from: 'pending', trigger: 'recovery_deadline', condition: 'always', to: 'review' },
  // A refund in review (the rail's, or recovery's after the deadline) settles when the rail, asked again (force_sync),
  // has decided: its reservation must not block the payment for good (docs/reliability.md, guarantees 3 and 4).
  { from: 'review', trigger: 'rail_result', condition: 'rail_succeeded', to: 'succeeded' },
  { from: 'review', trigger: 'rail_result', condition: 'rail_failed', to: 'failed' },
];

const REFUND_MACHINE = { rows: REFUND_TRANSITIONS, conditions: REFUND_CONDITIONS };

export function decideRefundTransition(from: RefundStatus | null, trigger: RefundTrigger, facts: RefundFacts): Decision<RefundStatus> {
  return decide(REFUND_MACHINE, from, trigger, facts);
}

/** Statuses that do not count toward the refunded sum of a payment. */
export const RELEASING_REFUND_STATUSES: readonly RefundStatus[] = ['failed'];

/**
 * The webhook event a refund status announces (Hyperswitch v1's for succeeded and failed). Review is announced too,
 * whoever put the refund there (the rail's answer, or recovery at its deadline): an operator must act on it, and
 * Hyperswitch has no event for it (docs/open-points.md). Pending announces nothing.
 */
export const REFUND_EVENT_FOR_STATUS: Partial<Record<RefundStatus, string>> = {
  succeeded: 'refund_succeeded',
  failed: 'refund_failed',
  review: 'refund_review',
};
