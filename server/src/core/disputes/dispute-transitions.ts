/**
 * The dispute state machine as one table (from, trigger, condition, to). Anything not in the table is refused
 * (ERR_4062). Statuses are the spec's (Hyperswitch v1 names). The spec gives one transition (accept: to
 * dispute_accepted, final) and says evidence can be detached before submission; the other rows are open points
 * (docs/open-points.md, "Disputes and files").
 */
import type { PaymentStatus } from '../../../../protocol/payments';
import type { DisputeStatus } from '../../../../protocol/api/disputes';
import { decide, type Decision, type Transition } from '../shared/transition-table';

export type DisputeTrigger =
  /** The rail reports a new dispute on a payment (today: POST /simulator/disputes). */
  | 'raise'
  /** POST /disputes/accept/{dispute_id}: the merchant concedes; final. */
  | 'accept'
  /** PUT /disputes/evidence: a file joins the evidence (status unchanged). */
  | 'attach_evidence'
  /** POST /files: a file is uploaded for the dispute, to become evidence (status unchanged). */
  | 'upload_file'
  /** DELETE /disputes/evidence: a file leaves the evidence before submission (status unchanged). */
  | 'delete_evidence'
  /** POST /disputes/evidence: the evidence goes to the rail. */
  | 'submit_evidence'
  /** The rail decides the dispute (today: POST /simulator/disputes/{dispute_id}/outcome). */
  | 'rail_outcome';

export type DisputeCondition = 'payment_disputable' | 'always' | 'rail_won' | 'rail_lost';

export interface DisputeFacts {
  /** The disputed payment's status (raise). */
  paymentStatus?: PaymentStatus;
  /** What the rail decided (rail_outcome). */
  outcome?: 'won' | 'lost';
}

export type DisputeTransition = Transition<DisputeStatus, DisputeTrigger, DisputeCondition>;

/** Payment statuses a dispute can arrive on: money was captured. */
export const DISPUTABLE_PAYMENT_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_captured'];

/**
 * Dispute statuses that hold the disputed amount (payments.amount_disputed): undecided, or decided for the customer.
 * That money can be neither refunded nor disputed again, and the payment can no longer be cancelled post capture.
 * A won dispute gives it back to the merchant (docs/open-points.md, "Disputes and refunds").
 */
export const DISPUTE_STATUSES_HOLDING_FUNDS: readonly DisputeStatus[] = ['dispute_opened', 'dispute_challenged', 'dispute_lost', 'dispute_accepted'];

/** Whether a dispute moving from `from` to `to` gives back the amount it held. */
export function releasesDisputedAmount(from: DisputeStatus, to: DisputeStatus): boolean {
  return DISPUTE_STATUSES_HOLDING_FUNDS.includes(from) && !DISPUTE_STATUSES_HOLDING_FUNDS.includes(to);
}

export const DISPUTE_CONDITIONS: Record<DisputeCondition, (facts: DisputeFacts) => boolean> = {
  payment_disputable: (facts) => facts.paymentStatus !== undefined && DISPUTABLE_PAYMENT_STATUSES.includes(facts.paymentStatus),
  always: () => true,
  rail_won: (facts) => facts.outcome === 'won',
  rail_lost: (facts) => facts.outcome === 'lost',
};

export const DISPUTE_TRANSITIONS: readonly DisputeTransition[] = [
  { from: null, trigger: 'raise', condition: 'payment_disputable', to: 'dispute_opened' },
  // Before submission: evidence is attached and detached (Hyperswitch: stage dispute, status dispute_opened).
  { from: 'dispute_opened', trigger: 'attach_evidence', condition: 'always', to: 'dispute_opened' },
  // A file is uploaded only while it can still become evidence.
  { from: 'dispute_opened', trigger: 'upload_file', condition: 'always', to: 'dispute_opened' },
  { from: 'dispute_opened', trigger: 'delete_evidence', condition: 'always', to: 'dispute_opened' },
  { from: 'dispute_opened', trigger: 'submit_evidence', condition: 'always', to: 'dispute_challenged' },
  // Accepting is final: the disputed amount stays with the customer (spec "States: Dispute").
  { from: 'dispute_opened', trigger: 'accept', condition: 'always', to: 'dispute_accepted' },
  // The rail decides a challenged dispute, or one the merchant left unanswered.
  { from: 'dispute_challenged', trigger: 'rail_outcome', condition: 'rail_won', to: 'dispute_won' },
  { from: 'dispute_challenged', trigger: 'rail_outcome', condition: 'rail_lost', to: 'dispute_lost' },
  { from: 'dispute_opened', trigger: 'rail_outcome', condition: 'rail_won', to: 'dispute_won' },
  { from: 'dispute_opened', trigger: 'rail_outcome', condition: 'rail_lost', to: 'dispute_lost' },
];

const DISPUTE_MACHINE = { rows: DISPUTE_TRANSITIONS, conditions: DISPUTE_CONDITIONS };

export function decideDisputeTransition(from: DisputeStatus | null, trigger: DisputeTrigger, facts: DisputeFacts = {}): Decision<DisputeStatus> {
  return decide(DISPUTE_MACHINE, from, trigger, facts);
}

/** The webhook event a dispute status announces: the event of the same name (Hyperswitch v1). */
export function disputeEventFor(status: DisputeStatus): string {
  return status;
}
