/**
 * The mandate state machine as one table. The spec names the statuses (active, inactive, pending, revoked) and no
 * transition; every row is an open point (docs/open-points.md, "States: Mandate"). The simulator activates a
 * mandate when the customer-present payment that sets it up succeeds, so pending and inactive are never entered.
 */
import type { MandateStatus } from '../../../../protocol/api/mandates';
import { decide, type Decision, type Transition } from '../shared/transition-table';

export type MandateTrigger = 'setup_payment_succeeded' | 'revoke';
export type MandateCondition = 'always';

export const MANDATE_TRANSITIONS: readonly Transition<MandateStatus, MandateTrigger, MandateCondition>[] = [
  { from: null, trigger: 'setup_payment_succeeded', condition: 'always', to: 'active' },
  { from: 'active', trigger: 'revoke', condition: 'always', to: 'revoked' },
];

const MANDATE_MACHINE = { rows: MANDATE_TRANSITIONS, conditions: { always: () => true } };

export function decideMandateTransition(from: MandateStatus | null, trigger: MandateTrigger): Decision<MandateStatus> {
  return decide(MANDATE_MACHINE, from, trigger, {});
}

/** The webhook event a mandate status announces (Hyperswitch v1 EventType). */
export const MANDATE_EVENT_FOR_STATUS: Partial<Record<MandateStatus, 'mandate_active' | 'mandate_revoked'>> = {
  active: 'mandate_active',
  revoked: 'mandate_revoked',
};
