import type { TwoFactorReset } from '../../../../protocol/api/keys';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toTwoFactorReset } from './operator-view';

/** How long a reset waits for its second operator. */
export const TWO_FACTOR_RESET_TTL_MS = 24 * 60 * 60_000;

/**
 * POST /v1/operators/{id}/two-factor-resets (fresh step-up, operators:manage): asks to reset an operator's
 * two-factor (a lost phone). Nothing changes until a second operator approves it (approve-two-factor-reset.ts).
 */
export async function requestTwoFactorReset(deps: CoreDeps, context: OperatorContext, operatorId: string): Promise<TwoFactorReset> {
  requireFreshStepUp(deps, context, 'operators:manage');
  const target = await deps.store.operators.findOperatorById(operatorId);
  if (target === undefined || target.accountId !== context.account.accountId) throw new ApiError('ERR_4082', 'No operator with this id exists in this account.');
  const now = deps.clock.now();
  const reset = {
    resetId: deps.ids.id('twoFactorReset'),
    accountId: context.account.accountId,
    operatorId,
    requestedBy: context.operator.operatorId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + TWO_FACTOR_RESET_TTL_MS),
    approvedBy: null,
    approvedAt: null,
  };
  await deps.store.transaction(async (tx) => {
    await tx.twoFactorResets.insertReset(reset);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `Two-factor reset asked for ${target.email}`,
      body: `${context.operator.email} asked to reset the two-factor of ${target.email} (reset ${reset.resetId}). Another operator must approve it before ${reset.expiresAt.toISOString()}.`,
    });
  });
  return toTwoFactorReset(reset);
}
