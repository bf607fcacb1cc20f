import type { ApiScope, InviteOperatorRequest } from '../../../../protocol/api/keys';
import { hashSecret } from '../auth/secrets';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 72 * 60 * 60_000;
const TOKEN_LENGTH = 48;

/**
 * POST /v1/operators/invitations (fresh step-up, operators:manage): a one-time link for a new operator, answered
 * once (only its hash is stored); the new operator sets a password with it, then enrols two-factor at sign-in. An
 * operator never grants scopes they do not hold. Every operator is told, in the same transaction.
 */
export async function inviteOperator(
  deps: CoreDeps,
  context: OperatorContext,
  body: InviteOperatorRequest,
  publicBaseUrl: string,
): Promise<{ invitation_id: string; email: string; scopes: ApiScope[]; expires_at: string; token: string; accept_url: string }> {
  requireFreshStepUp(deps, context, 'operators:manage');
  const scopes = body.scopes ?? context.operator.scopes;
  const beyond = scopes.filter((scope) => !context.operator.scopes.includes(scope));
  if (beyond.length > 0) throw new ApiError('ERR_1004', `You cannot grant scopes you do not hold: ${beyond.join(', ')}.`, { fieldName: 'scopes' });
  if ((await deps.store.operators.findOperatorByEmail(body.email)) !== undefined) {
    throw new ApiError('ERR_4085', 'An operator with this e-mail exists.', { fieldName: 'email' });
  }
  const now = deps.clock.now();
  const token = `oit_${deps.ids.secret(TOKEN_LENGTH)}`;
  const invitation = {
    invitationId: deps.ids.id('invitation'),
    accountId: context.account.accountId,
    email: body.email,
    scopes: [...new Set(scopes)],
    tokenHash: hashSecret(token),
    invitedBy: context.operator.operatorId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    acceptedAt: null,
  };
  await deps.store.transaction(async (tx) => {
    await tx.operatorInvitations.insertInvitation(invitation);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `Operator invited: ${body.email}`,
      body: `${context.operator.email} invited ${body.email} as an operator with scopes ${invitation.scopes.join(', ') || '(none)'}. The invitation works once, until ${invitation.expiresAt.toISOString()}.`,
    });
  });
  return {
    invitation_id: invitation.invitationId,
    email: invitation.email,
    scopes: invitation.scopes,
    expires_at: invitation.expiresAt.toISOString(),
    token,
    accept_url: `${publicBaseUrl}/v1/operators/invitations/accept#token=${token}`,
  };
}
