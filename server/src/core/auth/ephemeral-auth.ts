import { EPHEMERAL_KEY_PATTERN } from '../../../../protocol/ids';
import type { AuthContext } from './auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { hashSecret } from './secrets';
import type { EphemeralKeyIssuer } from '../../storage/customers/records';

/** Whether the issuing API key still authenticates: present, not revoked, not past its expiry (as auth.ts checks). */
function issuerUsable(issuer: EphemeralKeyIssuer | undefined, now: Date): boolean {
  return issuer !== undefined && issuer.revokedAt === null && (issuer.expiresAt === null || issuer.expiresAt > now);
}

/**
 * Resolves an `epk_...` key to an AuthContext of kind `ephemeral`, scoped to its account, mode and customer.
 * Malformed, unknown, deleted or expired keys answer ERR_1002, like any unusable key, and so does a key whose
 * issuing API key was revoked or has expired (a rotated key at the end of its grace period): an ephemeral key lives
 * as long as its issuer does, never past its own hour. Keys created before the issuer was recorded keep their own
 * expiry (docs/open-points.md).
 */
export async function authenticateEphemeralKey(deps: CoreDeps, key: string): Promise<AuthContext> {
  if (!EPHEMERAL_KEY_PATTERN.test(key)) throw new ApiError('ERR_1002', 'The ephemeral key is malformed or unknown.');
  const found = await deps.store.ephemeralKeys.findEphemeralKeyBySecretHash(hashSecret(key));
  if (found === undefined) throw new ApiError('ERR_1002', 'The ephemeral key is unknown or was deleted.');
  const now = deps.clock.now();
  if (found.key.expiresAt <= now) {
    throw new ApiError('ERR_1002', 'The ephemeral key has expired; create a new one with POST /ephemeral_keys.');
  }
  if (found.key.issuerKeyId !== null && !issuerUsable(found.issuer, now)) {
    throw new ApiError('ERR_1002', 'The API key that created this ephemeral key was revoked or has expired; create a new one with POST /ephemeral_keys.');
  }
  return {
    accountId: found.account.accountId,
    mode: found.key.mode,
    keyId: found.key.keyId,
    keyKind: 'ephemeral',
    account: found.account,
    customerId: found.key.customerId,
  };
}
