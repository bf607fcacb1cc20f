import type { TwoFactorReset } from '../../../../protocol/api/keys';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toTwoFactorReset } from './operator-view';

/**
 * POST /v1/operators/two-factor-resets/{reset_id}/approve (fresh step-up, operators:manage, neither the operator who
 * asked nor the one it resets): the target's TOTP secret is cleared, their sessions lose their verification, and they enrol a new one at
 * their next sign-in. The two-person rule means no single operator can take over another's second factor.
 */
export async function approveTwoFactorReset(deps: CoreDeps, context: OperatorContext, resetId: string): Promise<TwoFactorReset> {
  requireFreshStepUp(deps, context, 'operators:manage');
  const refused = (why: string) => new ApiError('ERR_4086', `This two-factor reset cannot be approved: ${why}.`);
  const reset = await deps.store.twoFactorResets.findReset(context.account.accountId, resetId);
  if (reset === undefined) throw refused('it does not exist in this account');
  if (reset.requestedBy === context.operator.operatorId) throw refused('a second operator must approve it, not the one who asked');
  if (reset.operatorId === context.operator.operatorId) throw refused('the operator whose second factor is reset cannot approve it');
  const now = deps.clock.now();
  const target = await deps.store.operators.findOperatorById(reset.operatorId);
  if (target === undefined) throw refused('its operator was removed');
  await deps.store.transaction(async (tx) => {
    if (!(await tx.twoFactorResets.approveReset(reset.resetId, context.operator.operatorId, now))) throw refused('it was approved already or has expired');
    await tx.operators.clearTotpSecret(reset.operatorId);
    await tx.operatorSessions.clearVerificationsOf(reset.operatorId);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `Two-factor reset for ${target.email}`,
      body: `${context.operator.email} approved the reset asked for by another operator: ${target.email} enrols a new second factor at the next sign-in.`,
    });
  });
  return toTwoFactorReset({ ...reset, approvedBy: context.operator.operatorId, approvedAt: now });
}
