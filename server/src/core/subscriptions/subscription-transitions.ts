/**
 * The subscription state machine as one table (statuses: Hyperswitch v1 SubscriptionStatus names; the spec shows
 * only `active`, so every row is an open point, docs/open-points.md).
 */
import type { SubscriptionStatus } from '../../storage/subscriptions/records';
import { decide, type Decision, type Transition } from '../shared/transition-table';

export type SubscriptionTrigger = 'create' | 'confirm' | 'payment_result' | 'pause' | 'resume' | 'cancel' | 'update' | 'renewal';
export type SubscriptionCondition = 'always' | 'paid' | 'payment_failed' | 'claim_abandoned';

export interface SubscriptionFacts {
  payment?: 'paid' | 'waiting' | 'failed';
  /** A pending subscription's claim: `abandoned` once its lease ran out (the confirm that holds it is presumed dead). */
  claim?: 'live' | 'abandoned';
}

export const SUBSCRIPTION_TRANSITIONS: readonly Transition<SubscriptionStatus, SubscriptionTrigger, SubscriptionCondition>[] = [
  { from: null, trigger: 'create', condition: 'always', to: 'created' },
  // Confirm claims the subscription before its first invoice is charged (pending: a second confirm is refused, so the
  // invoice is charged once), and the payment's result settles it; a payment that waits for the customer leaves it
  // pending until the result is known.
  { from: 'created', trigger: 'confirm', condition: 'always', to: 'pending' },
  // A confirm that died after its claim does not keep the subscription pending for ever: once the claim's lease ran
  // out, a later confirm takes it over (and charges the invoice under the claimed payment id).
  { from: 'pending', trigger: 'confirm', condition: 'claim_abandoned', to: 'pending' },
  { from: 'pending', trigger: 'payment_result', condition: 'paid', to: 'active' },
  { from: 'pending', trigger: 'payment_result', condition: 'payment_failed', to: 'created' },
  { from: 'active', trigger: 'pause', condition: 'always', to: 'paused' },
  { from: 'paused', trigger: 'resume', condition: 'always', to: 'active' },
  { from: 'unpaid', trigger: 'resume', condition: 'always', to: 'active' },
  { from: 'created', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  // A pending subscription is cancelled only once its claim was abandoned with no payment stored (the customer cannot
  // pay any more); one whose invoice is being charged or waits for the customer settles first (core).
  { from: 'pending', trigger: 'cancel', condition: 'claim_abandoned', to: 'cancelled' },
  { from: 'active', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'paused', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'unpaid', trigger: 'cancel', condition: 'always', to: 'cancelled' },
  { from: 'created', trigger: 'update', condition: 'always', to: 'created' },
  { from: 'active', trigger: 'update', condition: 'always', to: 'active' },
  { from: 'paused', trigger: 'update', condition: 'always', to: 'paused' },
  { from: 'unpaid', trigger: 'update', condition: 'always', to: 'unpaid' },
  // A renewal charges the mandate on the injected clock: paid keeps it active, a refused charge makes it unpaid.
  { from: 'active', trigger: 'renewal', condition: 'paid', to: 'active' },
  { from: 'active', trigger: 'renewal', condition: 'payment_failed', to: 'unpaid' },
  // A renewal claimed while active, whose payment the rail decided only after a pause or a cancel: the money may have
  // been taken, so the period still follows the payment (invoice_paid, or the period unpaid), the status stays.
  { from: 'paused', trigger: 'renewal', condition: 'paid', to: 'paused' },
  { from: 'paused', trigger: 'renewal', condition: 'payment_failed', to: 'paused' },
  { from: 'cancelled', trigger: 'renewal', condition: 'paid', to: 'cancelled' },
  { from: 'cancelled', trigger: 'renewal', condition: 'payment_failed', to: 'cancelled' },
];

const MACHINE = {
  rows: SUBSCRIPTION_TRANSITIONS,
  conditions: {
    always: () => true,
    paid: (facts: SubscriptionFacts) => facts.payment === 'paid',
    payment_failed: (facts: SubscriptionFacts) => facts.payment === 'failed',
    claim_abandoned: (facts: SubscriptionFacts) => facts.claim === 'abandoned',
  },
};

export function decideSubscriptionTransition(from: SubscriptionStatus | null, trigger: SubscriptionTrigger, facts: SubscriptionFacts = {}): Decision<SubscriptionStatus> {
  return decide(MACHINE, from, trigger, facts);
}

/**
 * The webhook event a change announces (docs/open-points.md: Hyperswitch v1 names no subscription events). A renewal
 * announces its payment's outcome: invoice_paid; refused, subscription_unpaid when it made the subscription unpaid,
 * else (paused or cancelled meanwhile) invoice_payment_failed.
 */
export function subscriptionEventFor(trigger: SubscriptionTrigger, to: SubscriptionStatus, facts: SubscriptionFacts = {}): string | undefined {
  if (trigger === 'create') return 'subscription_created';
  if (trigger === 'update') return 'subscription_updated';
  if (trigger === 'renewal') return facts.payment === 'paid' ? 'invoice_paid' : to === 'unpaid' ? 'subscription_unpaid' : 'invoice_payment_failed';
  // A confirm's claim (pending) and a declined first invoice (back to created) announce nothing.
  const byStatus: Partial<Record<SubscriptionStatus, string>> = {
    active: 'subscription_active',
    paused: 'subscription_paused',
    cancelled: 'subscription_cancelled',
  };
  return byStatus[to];
}
