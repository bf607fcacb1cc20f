import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * DELETE /v1/operators/{id} (fresh step-up, operators:manage): the operator and their sessions stop at once. The
 * last operator of an account stays (ERR_4083), so the account is never left without one; concurrent removals are
 * serialized on the account's row, so two of the last two cannot both go.
 */
export async function removeOperator(deps: CoreDeps, context: OperatorContext, operatorId: string): Promise<{ operator_id: string; removed: true }> {
  requireFreshStepUp(deps, context, 'operators:manage');
  const { accountId } = context.account;
  await deps.store.transaction(async (tx) => {
    await tx.accounts.lockAccount(accountId);
    const operators = await tx.operators.listOperators(accountId);
    const target = operators.find((operator) => operator.operatorId === operatorId);
    if (target === undefined) throw new ApiError('ERR_4082', 'No operator with this id exists in this account.');
    if (operators.length <= 1) throw new ApiError('ERR_4083', 'The last operator of an account cannot be removed; invite another first.');
    await tx.operators.deleteOperator(accountId, operatorId);
    // What they set in motion ends with them: their pending invitations and the resets they asked for.
    await tx.operatorInvitations.expireInvitationsBy(operatorId, deps.clock.now());
    await tx.twoFactorResets.expireResetsRequestedBy(operatorId, deps.clock.now());
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `Operator removed: ${target.email}`,
      body: `${context.operator.email} removed the operator ${target.email} (${target.operatorId}); their sessions ended at once.`,
    });
  });
  return { operator_id: operatorId, removed: true };
}
