import type { VerifySessionRequest } from '../../../../protocol/api/keys';
import { matchTotpStep } from '../auth/totp';
import { DEFAULT_KEY_POLICY, type CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { OperatorContext } from './operator-context';

/**
 * POST /v1/sessions/verify: a TOTP code (RFC 6238, one step either side) makes the session's two-factor fresh for
 * the step-up window. A code is good once: the step it matched is claimed in the store, so a replay fails on
 * every instance (ERR_1011).
 */
export async function verifySession(deps: CoreDeps, context: OperatorContext, body: VerifySessionRequest): Promise<{ verifiedAt: Date; freshUntil: Date }> {
  if (deps.operatorSecrets === undefined) throw new ApiError('ERR_5005', 'Two-factor verification is unavailable: the server has no vault key.');
  const { operator } = context;
  if (operator.totpSecret === '') {
    throw new ApiError('ERR_1012', 'You have no second factor yet: POST /v1/sessions/two-factor gives you a TOTP secret, then verify a code from it.');
  }
  let secret: string;
  try {
    secret = deps.operatorSecrets.open(operator.totpSecret, operator.operatorId, operator.accountId);
  } catch (error) {
    // Sealed under another vault key: instances of one deployment must share RAIL_VAULT_KEY (docs/operations.md).
    throw new ApiError('ERR_5005', "The two-factor secret cannot be read with this server's vault key; retry, or contact the operator of this deployment.", { cause: error });
  }
  const now = deps.clock.now();
  const step = matchTotpStep(secret, body.code, now);
  if (step === undefined || !(await deps.store.operators.claimTotpStep(operator.operatorId, step))) {
    throw new ApiError('ERR_1011', 'The two-factor code is wrong, expired, or was used already; wait for the next code.', { fieldName: 'code' });
  }
  await deps.store.operatorSessions.markSessionVerified(context.session.sessionId, now);
  return { verifiedAt: now, freshUntil: new Date(now.getTime() + (deps.keys ?? DEFAULT_KEY_POLICY).stepUpWindowMs) };
}
