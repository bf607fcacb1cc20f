/** POST /ephemeral_keys and DELETE /ephemeral_keys/{id}: short-lived keys that scope a browser to one customer. */
import type { CreateEphemeralKeyRequest, EphemeralKeyDeleteResponse, EphemeralKeyResponse } from '../../../../protocol/api/customers';
import type { EphemeralKeyRecord } from '../../storage/customers/records';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findLiveCustomer } from './find-live-customer';
import { hashSecret } from '../auth/secrets';

/** Lifetime of an ephemeral key: one hour (Hyperswitch's default `eph_key.validity`). */
export const EPHEMERAL_KEY_TTL_SECONDS = 3600;

/** Base62 characters after `epk_`. */
const EPHEMERAL_SECRET_LENGTH = 40;

/** Creates a key for an existing customer (ERR_4006 otherwise). The secret is returned once; only its hash is stored. */
export async function createEphemeralKey(
  deps: CoreDeps,
  auth: AuthContext,
  body: CreateEphemeralKeyRequest,
): Promise<EphemeralKeyResponse> {
  await findLiveCustomer(deps.store, auth, body.customer_id);
  const now = deps.clock.now();
  const secret = `epk_${deps.ids.secret(EPHEMERAL_SECRET_LENGTH)}`;
  const key: EphemeralKeyRecord = {
    keyId: deps.ids.id('ephemeralKey'),
    accountId: auth.accountId,
    mode: auth.mode,
    customerId: body.customer_id,
    secretHash: hashSecret(secret),
    createdAt: now,
    expiresAt: new Date(now.getTime() + EPHEMERAL_KEY_TTL_SECONDS * 1000),
    issuerKeyId: auth.keyId,
  };
  if ((await deps.store.ephemeralKeys.insertEphemeralKey(key)) === 'duplicate') {
    throw new Error('ephemeral key id or secret collided');
  }
  return {
    id: key.keyId,
    customer_id: key.customerId,
    secret,
    created_at: key.createdAt.toISOString(),
    expires: key.expiresAt.toISOString(),
  };
}

/** Deletes a key at once (ERR_4021 when there is none); a deleted key authenticates nothing. */
export async function deleteEphemeralKey(deps: CoreDeps, auth: AuthContext, keyId: string): Promise<EphemeralKeyDeleteResponse> {
  const deleted = await deps.store.ephemeralKeys.deleteEphemeralKey(auth, keyId);
  if (deleted === undefined) throw new ApiError('ERR_4021', 'No such ephemeral key exists for this account and mode.');
  return {
    id: deleted.keyId,
    customer_id: deleted.customerId,
    created_at: deleted.createdAt.toISOString(),
    expires: deleted.expiresAt.toISOString(),
    deleted: true,
  };
}
