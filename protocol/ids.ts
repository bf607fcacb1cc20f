/** Prefixes of generated ids (Hyperswitch's): a prefix plus 20 base62 characters. */
export const ID_PREFIX = {
  payment: 'pay',
  refund: 'ref',
  customer: 'cus',
  paymentMethod: 'pm',
  mandate: 'man',
  dispute: 'dp',
  file: 'file',
  subscription: 'sub',
  event: 'evt',
  attempt: 'att',
  pspToken: 'tok',
  apiKey: 'key',
  account: 'acc',
  profile: 'pro',
  ephemeralKey: 'eki',
  collection: 'col',
  settlement: 'stl',
  operator: 'op',
  session: 'ses',
  securityEmail: 'sem',
  invitation: 'inv',
  twoFactorReset: 'tfr',
  webhookEndpoint: 'we',
  /** A capture or void request's own reference (derived from its Idempotency-Key in a keyed request). */
  holdChangeRequest: 'hcr',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

export const GENERATED_ID_RANDOM_LENGTH = 20;

/** Ephemeral keys (api-conventions §2, Hyperswitch `epk_`): `epk_` + 40 base62 characters. */
export const EPHEMERAL_KEY_PATTERN = /^epk_[A-Za-z0-9]{40}$/;

/** Key shape from the spec: rail_<full|open>_<test|live>_<secret>, secret at least 32 base62 characters. */
export const API_KEY_PATTERN = /^rail_(full|open)_(test|live)_[A-Za-z0-9]{32,}$/;
export type KeyType = 'full' | 'open';

/**
 * Query parameter that carries the publishable key on a browser GET instead of a header, so the GET is a CORS simple
 * request with no preflight (protocol/api/key-query.ts; docs/security.md).
 */
export const PUBLISHABLE_KEY_QUERY_NAME = 'key';
export type Mode = 'test' | 'live';

/** Base62 characters of a client_secret's random part. */
export const CLIENT_SECRET_RANDOM_LENGTH = 20;
/** The client_secret of `objectId` (a payment or a subscription) with that random part. */
export function clientSecretOf(objectId: string, random: string): string {
  return `${objectId}_secret_${random}`;
}
/** client_secret shape: <payment_id>_secret_<20 base62>. */
export const CLIENT_SECRET_PATTERN = /^([A-Za-z0-9_-]{1,62})_secret_([A-Za-z0-9]{20})$/;

/** Extracts the payment_id a client_secret belongs to, or undefined for a malformed secret. */
export function paymentIdFromClientSecret(clientSecret: string): string | undefined {
  return CLIENT_SECRET_PATTERN.exec(clientSecret)?.[1];
}

/** Merchant-chosen payment_id: [A-Za-z0-9_-], 1..62 characters (the spec's Limits table). */
export const MERCHANT_PAYMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,62}$/;
