import { generateTotpSecret } from '../auth/secrets';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { OperatorContext } from './operator-context';

/**
 * POST /v1/sessions/two-factor: an operator without a second factor (a new operator, or after an approved reset)
 * gets a new TOTP secret, in this answer only, with its otpauth URI for an authenticator app. The session then
 * verifies a code from it as usual. An enrolled operator gets ERR_4087: a reset needs two operators.
 */
export async function enrollTwoFactor(deps: CoreDeps, context: OperatorContext): Promise<{ totp_secret: string; otpauth_uri: string }> {
  if (deps.operatorSecrets === undefined) throw new ApiError('ERR_5005', 'Two-factor enrolment is unavailable: the server has no vault key.');
  const { operator, account } = context;
  const secret = generateTotpSecret();
  if (operator.totpSecret !== '' || !(await deps.store.operators.enrollTotpSecret(operator.operatorId, deps.operatorSecrets.seal(secret, operator.operatorId, account.accountId)))) {
    throw new ApiError('ERR_4087', 'Two-factor is enrolled already; another operator can ask for a reset.');
  }
  const label = encodeURIComponent(`Rail:${operator.email}`);
  return { totp_secret: secret, otpauth_uri: `otpauth://totp/${label}?secret=${secret}&issuer=Rail&algorithm=SHA1&digits=6&period=30` };
}
