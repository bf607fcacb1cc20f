/**
 * Who is calling: resolved from the API key (api-key header or Authorization: Bearer). Mode comes from the key;
 * every look-up afterwards is scoped to the key's account and mode.
 */
import type { ApiScope } from '../../../../protocol/api/keys';
import { API_KEY_PATTERN, CLIENT_SECRET_RANDOM_LENGTH, clientSecretOf, type KeyType, type Mode } from '../../../../protocol/ids';
import type { KeyWithAccount } from '../../storage/accounts/store';
import type { PaymentRecord } from '../../storage/payments/records';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import type { AuthContext, KeyKind } from './auth-context';
import { authenticateEphemeralKey } from './ephemeral-auth';
import { hashSecret, secretsEqual } from './secrets';

const KIND_OF_TYPE: Record<KeyType, 'secret' | 'publishable'> = { full: 'secret', open: 'publishable' };

/** Parses the key's visible parts; undefined when it does not have the spec's shape. */
export function parseApiKey(key: string): { keyType: KeyType; mode: Mode } | undefined {
  const match = API_KEY_PATTERN.exec(key);
  if (!match) return undefined;
  return { keyType: match[1] as KeyType, mode: match[2] as Mode };
}

/** Resolves an API key to its account and mode, or throws ERR_1001 / ERR_1002. */
export async function authenticateApiKey(deps: CoreDeps, key: string | undefined): Promise<AuthContext> {
  if (key === undefined || key === '') {
    throw new ApiError('ERR_1001', 'No API key was sent. Send it in the api-key header or as Authorization: Bearer <key>.');
  }
  if (key.startsWith('epk_')) return authenticateEphemeralKey(deps, key);
  const parsed = parseApiKey(key);
  if (!parsed) throw new ApiError('ERR_1002', 'The API key is malformed or unknown.');
  const auth = authContextOf(parsed, await deps.store.apiKeys.findApiKeyByHash(hashSecret(key)), deps.clock.now());
  if (auth === undefined) throw new ApiError('ERR_1002', 'The API key is malformed, unknown or revoked.');
  return auth;
}

/**
 * The caller of a valid secret or publishable key that this process keeps in memory (storage/accounts/key-lookup-cache.ts),
 * else undefined, without reading the database: what an address over the failed_authentication limit is still let
 * through with (http/rate-limit.ts), so that a merchant's servers keep working beside a client that keeps sending a
 * revoked key from the same address.
 */
export function authenticateKeptApiKey(deps: CoreDeps, key: string | undefined): AuthContext | undefined {
  const parsed = key === undefined ? undefined : parseApiKey(key);
  if (!parsed || key === undefined) return undefined;
  return authContextOf(parsed, deps.store.apiKeys.findKeptApiKeyByHash(hashSecret(key)), deps.clock.now());
}

function authContextOf(parsed: NonNullable<ReturnType<typeof parseApiKey>>, found: KeyWithAccount | undefined, now: Date): AuthContext | undefined {
  if (
    !found ||
    found.key.revokedAt !== null ||
    (found.key.expiresAt !== null && found.key.expiresAt <= now) ||
    found.key.mode !== parsed.mode ||
    found.key.keyType !== parsed.keyType
  ) {
    return undefined;
  }
  return {
    accountId: found.account.accountId,
    mode: found.key.mode,
    keyId: found.key.keyId,
    keyKind: KIND_OF_TYPE[found.key.keyType],
    account: found.account,
    scopes: found.key.scopes,
    ...(found.defaultProfile !== undefined ? { defaultProfile: found.defaultProfile } : {}),
  };
}

/** Refuses an API key without the scope an operation needs (ERR_1004). An ephemeral key carries no scopes. */
export function requireScope(auth: AuthContext, scope: ApiScope): void {
  if (auth.scopes !== undefined && !auth.scopes.includes(scope)) {
    throw new ApiError('ERR_1004', `This key lacks scope ${scope}, which this operation needs.`);
  }
}

/** Refuses a key kind an operation does not take (ERR_1003). */
export function requireKeyKind(auth: AuthContext, allowed: readonly KeyKind[]): void {
  if (!allowed.includes(auth.keyKind)) {
    const wanted = allowed.map((kind) => `${kind} key`).join(' or ');
    throw new ApiError('ERR_1003', `This operation needs a ${wanted}.`);
  }
}

/**
 * The one answer to a publishable key whose client_secret reaches nothing: a payment (or subscription) that does not
 * exist in the key's account and mode, and one that exists with another client_secret, answer alike, so that a
 * publishable key, which is public, cannot tell which ids exist (docs/security.md).
 */
export function clientSecretMismatch(object: 'payment' | 'subscription' = 'payment'): ApiError {
  return new ApiError('ERR_1005', `client_secret does not belong to this ${object}.`, { fieldName: 'client_secret' });
}

/**
 * clientSecretMismatch for a client_secret sent about an id that names nothing the key reaches, after the same
 * constant-time comparison another client_secret gets, against a stand-in of the length an issued secret of that id
 * has: the unknown object and the wrong secret take the same work as well as the same answer.
 */
export function clientSecretMismatchOfUnknown(objectId: string, clientSecret: string, object: 'payment' | 'subscription' = 'payment'): ApiError {
  secretsEqual(clientSecret, clientSecretOf(objectId, '0'.repeat(CLIENT_SECRET_RANDOM_LENGTH)));
  return clientSecretMismatch(object);
}

/**
 * Checks a client_secret against a payment: it must be the payment's own (constant-time compare) and unexpired.
 * Throws ERR_1005 (not this payment's) or ERR_1006 (expired).
 */
export function verifyClientSecret(payment: PaymentRecord, clientSecret: string, now: Date): void {
  if (!secretsEqual(clientSecret, payment.clientSecret)) throw clientSecretMismatch();
  if (payment.clientSecretExpiresAt <= now) {
    throw new ApiError('ERR_1006', 'client_secret has expired; create a new payment.', { fieldName: 'client_secret' });
  }
}

/**
 * The client_secret rules for every payment operation (api-conventions §2, docs/security.md):
 * - secret key: client_secret must not be sent (ERR_1007; spec confirm rule 2, one rule for every operation);
 * - publishable key: the payment's own, unexpired client_secret is required (ERR_2001 missing, ERR_1005 another
 *   payment's, ERR_1006 expired). A payment id is not a secret, so a publishable key alone reaches no payment.
 */
export function authorizePaymentAccess(auth: AuthContext, payment: PaymentRecord, clientSecret: string | undefined, now: Date): void {
  if (auth.keyKind === 'secret') {
    if (clientSecret !== undefined) {
      throw new ApiError('ERR_1007', 'client_secret must not be sent with a secret key; server-side calls do not carry it.', {
        fieldName: 'client_secret',
      });
    }
    return;
  }
  if (clientSecret === undefined) throw missingClientSecret();
  verifyClientSecret(payment, clientSecret, now);
}

export function missingClientSecret(): ApiError {
  return new ApiError('ERR_2001', 'client_secret is required with a publishable key.', { fieldName: 'client_secret' });
}
