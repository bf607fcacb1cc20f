/**
 * The 3DS decision rule set POST /three_ds_decision/execute runs, as a table: the first rule whose condition holds
 * gives the decision (docs/simulator.md lists it). Amounts are minor units of the payment's currency. The fraud-rate
 * thresholds are PSD2's transaction-risk-analysis reference rates (RTS Art. 18), in percent.
 */
import type { ThreeDsDecision, ThreeDsDecisionExecuteRequest } from '../../../../protocol/api/card-ops';

/** The routing_id of the one rule set Rail has; any other routing_id answers ERR_4018. */
export const DEFAULT_THREE_DS_RULE_SET = 'rail_3ds_default';

export interface ThreeDsRule {
  name: string;
  applies: (request: ThreeDsDecisionExecuteRequest) => boolean;
  decision: ThreeDsDecision;
}

const HIGH_VALUE_FROM = 100_000;
const LOW_VALUE_BELOW = 3_000;
const TRA_UP_TO = 10_000;
const TRA_FRAUD_RATE_MAX = 0.13;

export const THREE_DS_RULES: readonly ThreeDsRule[] = [
  { name: 'high value', applies: (r) => r.payment.amount >= HIGH_VALUE_FROM, decision: 'challenge_requested' },
  {
    name: 'cross-border',
    applies: (r) => r.issuer?.country !== undefined && r.acquirer?.country !== undefined && r.issuer.country !== r.acquirer.country,
    decision: 'challenge_preferred',
  },
  { name: 'low value', applies: (r) => r.payment.amount < LOW_VALUE_BELOW, decision: 'three_ds_exemption_requested_low_value' },
  {
    name: 'transaction risk analysis',
    applies: (r) => r.payment.amount <= TRA_UP_TO && r.acquirer?.fraud_rate !== undefined && r.acquirer.fraud_rate <= TRA_FRAUD_RATE_MAX,
    decision: 'three_ds_exemption_requested_tra',
  },
  { name: 'otherwise', applies: () => true, decision: 'no_three_ds' },
];
