import type { CreateSessionRequest } from '../../../../protocol/api/keys';
import type { OperatorSessionRecord } from '../../storage/operators/records';
import { hashPassword, hashSecret, verifyPassword } from '../auth/secrets';
import { DEFAULT_KEY_POLICY, type CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { SESSION_TOKEN_SECRET_LENGTH } from './session-token';

let dummyHash: Promise<string> | undefined;

/**
 * POST /v1/sessions: email and password to a session token (shown once). The session starts without two-factor:
 * key management needs POST /v1/sessions/verify first. An unknown e-mail costs the same scrypt as a wrong password,
 * so the answer's timing does not tell which operators exist.
 */
export async function createSession(deps: CoreDeps, body: CreateSessionRequest): Promise<{ token: string; session: OperatorSessionRecord }> {
  const operator = await deps.store.operators.findOperatorByEmail(body.email.toLowerCase());
  const passwordOk = await verifyPassword(body.password, operator?.passwordHash ?? (await (dummyHash ??= hashPassword('not an operator'))));
  if (operator === undefined || !passwordOk) throw new ApiError('ERR_1008', 'The e-mail or password is wrong.');
  const now = deps.clock.now();
  const token = `ops_${deps.ids.secret(SESSION_TOKEN_SECRET_LENGTH)}`;
  const session: OperatorSessionRecord = {
    sessionId: deps.ids.id('session'),
    accountId: operator.accountId,
    operatorId: operator.operatorId,
    tokenHash: hashSecret(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + (deps.keys ?? DEFAULT_KEY_POLICY).sessionTtlMs),
    verifiedAt: null,
    endedAt: null,
  };
  await deps.store.operatorSessions.insertSession(session);
  return { token, session };
}
