import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireKeyManager } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { findManageableKey } from './find-managed-key';

/**
 * DELETE /v1/api-keys/{id} (spec rule 3): the key stops working at once, a rotated key in its grace window included;
 * no cooldown. Keys are read from the store on every request, so every instance refuses it from the next request.
 * Revoking a key that no longer works answers the same, without a second e-mail.
 */
export async function revokeApiKey(deps: CoreDeps, context: OperatorContext, keyId: string): Promise<{ key_id: string; revoked: true }> {
  requireKeyManager(deps, context);
  const { accountId } = context.account;
  const key = await findManageableKey(deps, accountId, keyId);
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    const ended =
      (await tx.apiKeys.endApiKey(accountId, key.keyId, { revokedAt: now })) || (await tx.apiKeys.revokeExpiringApiKey(accountId, key.keyId, now));
    if (!ended) return;
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `API key "${key.name}" revoked`,
      body: `${context.operator.email} revoked the ${key.mode} key "${key.name}" (${key.keyId}, ${key.prefix}...). It stopped working at ${now.toISOString()}.`,
    });
  });
  return { key_id: key.keyId, revoked: true };
}
