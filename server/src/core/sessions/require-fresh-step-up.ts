import type { ApiScope } from '../../../../protocol/api/keys';
import { DEFAULT_KEY_POLICY, type CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { OperatorContext } from './operator-context';

/**
 * What an operator needs for a sensitive change (key management, spec rule 5; the settlement wallet): a two-factor
 * verification within the step-up window (ERR_1019), then the operator scope of the change (ERR_1004).
 */
export function requireFreshStepUp(deps: CoreDeps, context: OperatorContext, scope: ApiScope): void {
  const { verifiedAt } = context.session;
  const windowMs = (deps.keys ?? DEFAULT_KEY_POLICY).stepUpWindowMs;
  if (verifiedAt === null || deps.clock.now().getTime() - verifiedAt.getTime() > windowMs) {
    throw new ApiError('ERR_1019', 'This change needs a fresh two-factor verification: POST /v1/sessions/verify with the current code, then retry.');
  }
  if (!context.operator.scopes.includes(scope)) {
    throw new ApiError('ERR_1004', `This operator lacks scope ${scope}.`);
  }
}

/** Key creation, rotation and revocation: a fresh step-up and api_keys:manage. */
export function requireKeyManager(deps: CoreDeps, context: OperatorContext): void {
  requireFreshStepUp(deps, context, 'api_keys:manage');
}
