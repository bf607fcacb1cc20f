import { hashSecret } from '../auth/secrets';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { OperatorContext } from './operator-context';
import { SESSION_TOKEN_PATTERN } from './session-token';

/**
 * Resolves a session token (bearer or cookie) to its operator: ERR_1008 when it is malformed, unknown, ended or
 * expired. Read from the store on every call, so a session ended on one instance is refused by all at once.
 */
export async function authenticateSession(deps: CoreDeps, token: string): Promise<OperatorContext> {
  const refused = () => new ApiError('ERR_1008', 'The session token is unknown, ended or expired; sign in again with POST /v1/sessions.');
  if (!SESSION_TOKEN_PATTERN.test(token)) throw refused();
  const session = await deps.store.operatorSessions.findSessionByTokenHash(hashSecret(token));
  if (session === undefined || session.endedAt !== null || session.expiresAt <= deps.clock.now()) throw refused();
  const operator = await deps.store.operators.findOperatorById(session.operatorId);
  const account = operator && (await deps.store.accounts.findAccountById(operator.accountId));
  if (operator === undefined || account === undefined) throw refused();
  return { session, operator, account };
}
