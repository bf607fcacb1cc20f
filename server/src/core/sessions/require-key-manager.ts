import { DEFAULT_KEY_POLICY, type CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { OperatorContext } from './operator-context';

/**
 * Key creation, rotation and revocation (spec rule 5): a two-factor verification within the step-up window
 * (ERR_1019), then scope api_keys:manage (ERR_1004).
 */
export function requireKeyManager(deps: CoreDeps, context: OperatorContext): void {
  const { verifiedAt } = context.session;
  const windowMs = (deps.keys ?? DEFAULT_KEY_POLICY).stepUpWindowMs;
  if (verifiedAt === null || deps.clock.now().getTime() - verifiedAt.getTime() > windowMs) {
    throw new ApiError('ERR_1019', 'Key management needs a fresh two-factor verification: POST /v1/sessions/verify with the current code, then retry.');
  }
  if (!context.operator.scopes.includes('api_keys:manage')) {
    throw new ApiError('ERR_1004', 'This operator lacks scope api_keys:manage.');
  }
}
