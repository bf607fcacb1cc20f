import { KEY_LIMITS, SERVICE_GATEWAY_KEY_NAME } from '../../../../protocol/api/keys';
import { ID_PREFIX } from '../../../../protocol/ids';
import type { ApiKeyRecord } from '../../storage/accounts/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

const KEY_ID = new RegExp(`^${ID_PREFIX.apiKey}_[A-Za-z0-9]{1,${KEY_LIMITS.keyIdMax}}$`);

/**
 * The key a rotate or revoke names, in the operator's account: ERR_2002 for an id of the wrong shape, ERR_4080 when
 * there is none, ERR_1010 for a managed credential (spec rule 4: 403).
 */
export async function findManageableKey(deps: CoreDeps, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  if (!KEY_ID.test(keyId)) throw new ApiError('ERR_2002', `The key id is malformed; key ids look like ${ID_PREFIX.apiKey}_ followed by letters and digits.`, { fieldName: 'id' });
  const key = await deps.store.apiKeys.findApiKeyById(accountId, keyId);
  if (key === undefined) throw new ApiError('ERR_4080', 'No API key with this id exists for this account.');
  if (key.name === SERVICE_GATEWAY_KEY_NAME) {
    throw new ApiError('ERR_1010', 'This key is a managed credential (service_gateway); it cannot be rotated or revoked.');
  }
  return key;
}
