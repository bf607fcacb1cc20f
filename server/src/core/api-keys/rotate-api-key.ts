import type { IssuedApiKey } from '../../../../protocol/api/keys';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireKeyManager } from '../sessions/require-fresh-step-up';
import { DEFAULT_KEY_POLICY, type CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { toIssuedApiKey } from './api-key-view';
import { findManageableKey } from './find-managed-key';
import { issueApiKey } from './issue-api-key';

/**
 * POST /v1/api-keys/{id}/rotate (spec rule 2): a replacement with the same name, mode, kind and scopes; the old key
 * keeps working for the grace window (24 hours) and then stops. Rate limited per account (ERR_4290 with
 * Retry-After), counted from the stored keys under a lock of the account so it holds across instances and in parallel. The old key's end, the new key
 * and the security e-mail to every operator commit together; of two rotations of one key at once, one wins and
 * the other gets ERR_4081.
 */
export async function rotateApiKey(deps: CoreDeps, context: OperatorContext, keyId: string): Promise<IssuedApiKey> {
  requireKeyManager(deps, context);
  const policy = deps.keys ?? DEFAULT_KEY_POLICY;
  const { accountId } = context.account;
  const old = await findManageableKey(deps, accountId, keyId);
  const now = deps.clock.now();
  if (old.revokedAt !== null || old.expiresAt !== null) {
    throw new ApiError('ERR_4081', 'This key was already rotated or revoked; rotate its replacement instead.');
  }
  const { limit, windowSeconds } = policy.rotationLimit;
  const graceEnds = new Date(now.getTime() + policy.rotationGraceMs);
  const { plaintext, record } = issueApiKey(deps.ids, {
    accountId,
    mode: old.mode,
    keyType: old.keyType,
    name: old.name,
    scopes: old.scopes,
    replacesKeyId: old.keyId,
    createdAt: now,
  });
  await deps.store.transaction(async (tx) => {
    // Rotations of one account run one at a time from here, so parallel ones cannot all pass the count.
    await tx.accounts.lockAccount(accountId);
    if ((await tx.apiKeys.countRotationsSince(accountId, new Date(now.getTime() - windowSeconds * 1000))) >= limit) {
      throw new ApiError('ERR_4290', `At most ${limit} key rotations per ${windowSeconds} seconds; retry later.`, { retryAfterSeconds: windowSeconds });
    }
    if (!(await tx.apiKeys.endApiKey(accountId, old.keyId, { expiresAt: graceEnds }))) {
      throw new ApiError('ERR_4081', 'This key was already rotated or revoked; rotate its replacement instead.');
    }
    await tx.apiKeys.insertApiKey(record);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `API key "${old.name}" rotated`,
      body:
        `${context.operator.email} rotated the ${old.mode} key "${old.name}" (${old.keyId}, ${old.prefix}...). ` +
        `Its replacement is ${record.keyId} (${record.prefix}...). The old key keeps working until ${graceEnds.toISOString()}.`,
    });
  });
  return toIssuedApiKey(record, plaintext);
}
