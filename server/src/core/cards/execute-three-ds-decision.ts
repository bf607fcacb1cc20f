import type { ThreeDsDecisionExecuteRequest, ThreeDsDecisionExecuteResponse } from '../../../../protocol/api/card-ops';
import type { AuthContext } from '../auth/auth-context';
import { requireCardAcquirer } from '../payments/card-rail';
import { ApiError } from '../shared/errors';
import { DEFAULT_THREE_DS_RULE_SET, THREE_DS_RULES } from './three-ds-decision-rules';

/**
 * POST /three_ds_decision/execute (secret key): the decision of the rule set named by routing_id for the payment
 * described in the body. Reads and changes nothing stored. An account without a card acquirer gets ERR_4004.
 */
export function executeThreeDsDecision(auth: AuthContext, request: ThreeDsDecisionExecuteRequest): ThreeDsDecisionExecuteResponse {
  requireCardAcquirer(auth.account.settings, auth.mode);
  if (request.routing_id !== DEFAULT_THREE_DS_RULE_SET) {
    throw new ApiError('ERR_4018', `No 3DS decision rule set has this routing_id; Rail's rule set is ${DEFAULT_THREE_DS_RULE_SET}.`, { fieldName: 'routing_id' });
  }
  const rule = THREE_DS_RULES.find((candidate) => candidate.applies(request));
  if (rule === undefined) throw new Error('unreachable: the last 3DS rule applies to every request');
  return { decision: rule.decision };
}
