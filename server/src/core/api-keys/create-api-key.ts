import { DEFAULT_KEY_SCOPES, SERVICE_GATEWAY_KEY_NAME, type CreateApiKeyRequest, type IssuedApiKey } from '../../../../protocol/api/keys';
import { ApiError } from '../shared/errors';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireKeyManager } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { toIssuedApiKey } from './api-key-view';
import { issueApiKey } from './issue-api-key';

/**
 * POST /v1/api-keys (operator session with fresh two-factor, api_keys:manage): a new key of the mode asked for, with
 * the 19 default scopes (spec rule 1). The plaintext is in this answer only. A live key works at once; what it can
 * reach depends on the account's live provisioning (ERR_3010 until a rail has live credentials).
 */
export async function createApiKey(deps: CoreDeps, context: OperatorContext, body: CreateApiKeyRequest): Promise<IssuedApiKey> {
  requireKeyManager(deps, context);
  // The managed credentials' name is reserved: a key named so would be hidden from the list and irrevocable.
  if (body.name.trim().toLowerCase() === SERVICE_GATEWAY_KEY_NAME) {
    throw new ApiError('ERR_2003', `The name ${SERVICE_GATEWAY_KEY_NAME} is reserved for managed credentials.`, { fieldName: 'name' });
  }
  const { plaintext, record } = issueApiKey(deps.ids, {
    accountId: context.account.accountId,
    mode: body.mode,
    keyType: body.key_type === 'secret' ? 'full' : 'open',
    name: body.name,
    scopes: DEFAULT_KEY_SCOPES,
    replacesKeyId: null,
    createdAt: deps.clock.now(),
  });
  await deps.store.transaction(async (tx) => {
    await tx.apiKeys.insertApiKey(record);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `New ${record.mode} API key "${record.name}"`,
      body: `${context.operator.email} created the ${record.mode} ${body.key_type} key "${record.name}" (${record.keyId}, ${record.prefix}...).`,
    });
  });
  return toIssuedApiKey(record, plaintext);
}
