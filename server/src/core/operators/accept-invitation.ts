import type { AcceptInvitationRequest, OperatorEntry } from '../../../../protocol/api/keys';
import { hashPassword, hashSecret } from '../auth/secrets';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toOperatorEntry } from './operator-view';

/**
 * POST /v1/operators/invitations/accept (no key: the token is the credential): the invitation's e-mail becomes an
 * operator with the password given. The link works once (a second use, even at the same moment, gets ERR_4084).
 * Two-factor is enrolled at the first sign-in (POST /v1/sessions/two-factor), so no secret travels with the link.
 */
export async function acceptInvitation(deps: CoreDeps, body: AcceptInvitationRequest): Promise<OperatorEntry> {
  const refused = () => new ApiError('ERR_4084', 'The invitation is unknown, was used already, or has expired; ask an operator for a new one.', { fieldName: 'token' });
  const invitation = await deps.store.operatorInvitations.findInvitationByTokenHash(hashSecret(body.token));
  const now = deps.clock.now();
  if (invitation === undefined || invitation.acceptedAt !== null || invitation.expiresAt <= now) throw refused();
  const passwordHash = await hashPassword(body.password);
  const operator = {
    operatorId: `op_${deps.ids.secret(20)}`,
    accountId: invitation.accountId,
    email: invitation.email,
    passwordHash,
    totpSecret: '',
    scopes: invitation.scopes,
    totpLastStep: null,
    createdAt: now,
  };
  await deps.store.transaction(async (tx) => {
    if (!(await tx.operatorInvitations.acceptInvitation(invitation.invitationId, now))) throw refused();
    if ((await tx.operators.insertOperator(operator)) === 'duplicate') {
      throw new ApiError('ERR_4085', 'An operator with this e-mail exists.', { fieldName: 'email' });
    }
  });
  return toOperatorEntry(operator);
}
