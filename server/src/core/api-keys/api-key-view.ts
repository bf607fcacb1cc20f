import type { ApiKeyEntry, IssuedApiKey } from '../../../../protocol/api/keys';
import type { ApiKeyRecord } from '../../storage/accounts/records';

/** A key as the API shows it: never its hash, never its plaintext. */
export function toApiKeyEntry(key: ApiKeyRecord): ApiKeyEntry {
  return {
    key_id: key.keyId,
    name: key.name,
    prefix: key.prefix,
    created: key.createdAt.toISOString(),
    mode: key.mode,
    key_type: key.keyType === 'full' ? 'secret' : 'publishable',
    scopes: [...key.scopes],
    expires_at: key.expiresAt?.toISOString() ?? null,
  };
}

/** A key just issued: the one answer that carries its plaintext. */
export function toIssuedApiKey(key: ApiKeyRecord, plaintext: string): IssuedApiKey {
  return Object.assign(toApiKeyEntry(key), { api_key: plaintext });
}
