/**
 * Webhook signatures, with node:crypto only.
 *
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed by the base64-decoded part of
 *   the `whsec_...` secret. Verifiable with the official `standardwebhooks` libraries.
 * - Hyperswitch compatibility: `X-Webhook-Signature-512: <hex HMAC-SHA512 of the body>`, keyed by the UTF-8 bytes
 *   of the whole secret string (`whsec_...` included), so a Hyperswitch receiver configured with the secret as its
 *   payment_response_hash_key verifies it unchanged.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Key bytes in a generated secret (the spec allows 24..64). */
export const GENERATED_SECRET_BYTES = 32;
/** Default tolerance of the verifier for webhook-timestamp (Standard Webhooks: 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(bytes: Buffer = randomBytes(GENERATED_SECRET_BYTES)): string {
  return `${SECRET_PREFIX}${bytes.toString('base64')}`;
}

/** The HMAC key of a Standard Webhooks secret: the base64 after `whsec_` (a bare base64 secret is accepted too). */
export function secretKeyBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('webhook secret is not whsec_ + base64');
  return Buffer.from(encoded, 'base64');
}

/** `v1,<base64 HMAC-SHA256("{id}.{timestamp}.{body}")>`. */
export function signStandardWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKeyBytes(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** Hyperswitch's X-Webhook-Signature-512: hex HMAC-SHA512 of the body, keyed by the UTF-8 bytes of the whole secret. */
export function signHyperswitch512(secret: string, body: string): string {
  return createHmac('sha512', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

/**
 * Every header a delivery carries besides content-type and user-agent. `secrets` is the current secret, then, during
 * a rotation's overlap, the old one: webhook-signature carries one `v1,` signature per secret, space-separated, so a
 * receiver still on the old secret keeps verifying (Standard Webhooks); Hyperswitch's header takes the current one.
 */
export function webhookHeaders(secrets: string | readonly string[], eventId: string, timestampSeconds: number, body: string): Record<string, string> {
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': all.map((secret) => signStandardWebhook(secret, eventId, timestampSeconds, body)).join(' '),
    'x-webhook-signature-512': signHyperswitch512(all[0]!, body),
  };
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

function equalConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Verifies a Standard Webhooks delivery (the algorithm of the official libraries): the timestamp must be within
 * `toleranceSeconds` of now, and one of the space-separated `v1,<sig>` entries must match, compared in constant
 * time. Returns the parsed body; throws WebhookVerificationError otherwise.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): unknown {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const seconds = Number(timestamp);
  if (seconds < now - tolerance) throw new WebhookVerificationError('webhook-timestamp too old');
  if (seconds > now + tolerance) throw new WebhookVerificationError('webhook-timestamp too new');
  const expected = signStandardWebhook(secret, id, seconds, body).slice('v1,'.length);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version === 'v1' && signature !== undefined && equalConstantTime(signature, expected)) return JSON.parse(body) as unknown;
  }
  throw new WebhookVerificationError('no matching signature');
}

/** Verifies X-Webhook-Signature-512 in constant time. */
export function verifyHyperswitch512(secret: string, body: string, signature: string | undefined): boolean {
  return signature !== undefined && equalConstantTime(signature.toLowerCase(), signHyperswitch512(secret, body));
}
