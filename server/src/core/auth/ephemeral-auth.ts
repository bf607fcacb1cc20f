import { EPHEMERAL_KEY_PATTERN } from '../../../../protocol/ids';
import type { AuthContext } from './auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { hashSecret } from './secrets';

/**
 * Resolves an `epk_...` key to an AuthContext of kind `ephemeral`, scoped to its account, mode and customer.
 * Malformed, unknown, deleted or expired keys answer ERR_1002, like any unusable key.
 */
export async function authenticateEphemeralKey(deps: CoreDeps, key: string): Promise<AuthContext> {
  if (!EPHEMERAL_KEY_PATTERN.test(key)) throw new ApiError('ERR_1002', 'The ephemeral key is malformed or unknown.');
  const found = await deps.store.ephemeralKeys.findEphemeralKeyBySecretHash(hashSecret(key));
  if (found === undefined) throw new ApiError('ERR_1002', 'The ephemeral key is unknown or was deleted.');
  if (found.key.expiresAt <= deps.clock.now()) {
    throw new ApiError('ERR_1002', 'The ephemeral key has expired; create a new one with POST /ephemeral_keys.');
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
