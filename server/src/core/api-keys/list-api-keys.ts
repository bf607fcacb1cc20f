import { SERVICE_GATEWAY_KEY_NAME, type ApiKeyEntry } from '../../../../protocol/api/keys';
import type { CoreDeps } from '../shared/deps';
import { toApiKeyEntry } from './api-key-view';

/**
 * GET /v1/api-keys (any authenticated call): the account's working keys of both modes, rotated keys in their grace
 * window included. Managed credentials (service_gateway) are hidden (spec rule 4).
 */
export async function listApiKeys(deps: CoreDeps, accountId: string): Promise<ApiKeyEntry[]> {
  const keys = await deps.store.apiKeys.listUsableApiKeys(accountId, deps.clock.now());
  return keys.filter((key) => key.name !== SERVICE_GATEWAY_KEY_NAME).map(toApiKeyEntry);
}
