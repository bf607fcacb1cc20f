import type { MandateRevokedResponse } from '../../../../protocol/api/mandates';
import type { Scope } from '../../kernel/store-types';
import type { Stores } from '../../storage/stores';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { statusesFiring } from '../shared/transition-table';
import { findMandateOrThrow } from './find-mandate';
import { recordMandateEvent } from './mandate-event';
import { decideMandateTransition, MANDATE_TRANSITIONS } from './mandate-transitions';

/**
 * POST /mandates/revoke/{mandate_id} (secret key): an active mandate becomes revoked, with its mandate_revoked event
 * in the same transaction; a later charge under it is refused (ERR_4088). Revoking a revoked mandate: ERR_4102.
 */
export async function revokeMandate(deps: CoreDeps, auth: AuthContext, mandateId: string): Promise<MandateRevokedResponse> {
  const mandate = await findMandateOrThrow(deps.store, auth, mandateId);
  const decision = decideMandateTransition(mandate.status, 'revoke');
  if (!decision.allowed) throw new ApiError('ERR_4102', `The mandate cannot be revoked because it has status ${mandate.status}.`);
  const now = deps.clock.now();
  const revoked = await deps.store.transaction(async (tx) => {
    const next = await tx.mandates.updateMandateStatusIf(auth, mandateId, statusesFiring(MANDATE_TRANSITIONS, 'revoke'), decision.to, now);
    if (next !== undefined) await recordMandateEvent(deps, tx, next, now);
    return next;
  });
  if (revoked === undefined) throw new ApiError('ERR_4102', 'The mandate cannot be revoked because it is no longer active.');
  return { mandate_id: revoked.mandateId, status: revoked.status, error_code: null, error_message: null };
}

/**
 * Revokes every active mandate of a customer (or only those on one payment method) in the caller's transaction: the
 * customer or the method is being deleted.
 */
export async function revokeMandatesOfCustomer(deps: CoreDeps, tx: Stores, scope: Scope, customerId: string, now: Date, paymentMethodId?: string): Promise<void> {
  const active = await tx.mandates.listMandates(scope, { limit: Number.MAX_SAFE_INTEGER, offset: 0, status: 'active', customerId });
  for (const mandate of active) {
    if (paymentMethodId !== undefined && mandate.paymentMethodId !== paymentMethodId) continue;
    const decision = decideMandateTransition(mandate.status, 'revoke');
    if (!decision.allowed) continue;
    const next = await tx.mandates.updateMandateStatusIf(scope, mandate.mandateId, [mandate.status], decision.to, now);
    if (next !== undefined) await recordMandateEvent(deps, tx, next, now);
  }
}
