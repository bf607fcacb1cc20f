import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
// The receiver example from docs/webhooks.md, run as merchants would run it.
import { verifyWebhook } from '../../../docs/examples/webhook-receiver.mjs';
import { generateWebhookSecret, secretKeyBytes, signHyperswitch512, signStandardWebhook, verifyHyperswitch512, verifyStandardWebhook, WebhookVerificationError, webhookHeaders } from './signing';

// The test vector published with the Standard Webhooks specification (and used by the official libraries' tests).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const vectorHeaders = (overrides: Record<string, string> = {}) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': VECTOR.signature,
  ...overrides,
});

describe('Standard Webhooks signing', () => {
  test('reproduces the specification test vector', () => {
    expect(signStandardWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  test('verifies the test vector at its own time and within the tolerance', () => {
    expect(verifyStandardWebhook(VECTOR.secret, vectorHeaders(), VECTOR.body, { nowSeconds: VECTOR.timestamp })).toEqual({ test: 2432232314 });
    expect(() => verifyStandardWebhook(VECTOR.secret, vectorHeaders(), VECTOR.body, { nowSeconds: VECTOR.timestamp + 299 })).not.toThrow();
  });

  test.each([
    ['a tampered body', vectorHeaders(), '{"test": 2432232315}', VECTOR.timestamp],
    ['a tampered timestamp', vectorHeaders({ 'webhook-timestamp': String(VECTOR.timestamp + 1) }), VECTOR.body, VECTOR.timestamp],
    ['a tampered id', vectorHeaders({ 'webhook-id': 'msg_other' }), VECTOR.body, VECTOR.timestamp],
    ['a tampered signature', vectorHeaders({ 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OF=' }), VECTOR.body, VECTOR.timestamp],
    ['an unknown version', vectorHeaders({ 'webhook-signature': VECTOR.signature.replace('v1,', 'v2,') }), VECTOR.body, VECTOR.timestamp],
    ['a timestamp older than 5 minutes', vectorHeaders(), VECTOR.body, VECTOR.timestamp + 301],
    ['a timestamp more than 5 minutes ahead', vectorHeaders(), VECTOR.body, VECTOR.timestamp - 301],
    ['missing headers', { 'webhook-id': VECTOR.id }, VECTOR.body, VECTOR.timestamp],
  ])('refuses %s', (_name, headers, body, nowSeconds) => {
    expect(() => verifyStandardWebhook(VECTOR.secret, headers, body, { nowSeconds })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(VECTOR.secret, headers, body, { nowSeconds })).toThrow();
  });

  test('refuses a signature made with another secret', () => {
    const other = generateWebhookSecret();
    const signature = signStandardWebhook(other, VECTOR.id, VECTOR.timestamp, VECTOR.body);
    const headers = vectorHeaders({ 'webhook-signature': signature });
    expect(() => verifyStandardWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp })).toThrow(WebhookVerificationError);
  });

  test('accepts any one of several space-separated signatures (secret rotation)', () => {
    const headers = vectorHeaders({ 'webhook-signature': `v1,bm9wZQ== ${VECTOR.signature}` });
    expect(verifyStandardWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp })).toEqual({ test: 2432232314 });
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp })).toEqual({ test: 2432232314 });
  });

  test('the docs example receiver verifies the test vector', () => {
    expect(verifyWebhook(VECTOR.secret, vectorHeaders(), VECTOR.body, { nowSeconds: VECTOR.timestamp })).toEqual({ test: 2432232314 });
  });

  test('round trip: headers made for a delivery verify with both verifiers', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ event_id: 'evt_1', event_type: 'payment_succeeded' });
    const headers = webhookHeaders(secret, 'evt_1', 1_700_000_000, body);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(verifyStandardWebhook(secret, headers, body, { nowSeconds: 1_700_000_010 })).toMatchObject({ event_id: 'evt_1' });
    expect(verifyWebhook(secret, headers, body, { nowSeconds: 1_700_000_010 })).toMatchObject({ event_id: 'evt_1' });
    expect(verifyHyperswitch512(secret, body, headers['x-webhook-signature-512'])).toBe(true);
    expect(verifyHyperswitch512(secret, `${body} `, headers['x-webhook-signature-512'])).toBe(false);
  });

  test('generated secrets are whsec_ + base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKeyBytes(secret)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(() => secretKeyBytes('whsec_not base64!')).toThrow();
  });
});

describe('X-Webhook-Signature-512 (Hyperswitch)', () => {
  test('is the hex HMAC-SHA512 of the body keyed by the UTF-8 bytes of the whole whsec_ secret', () => {
    const expected = createHmac('sha512', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').update(VECTOR.body).digest('hex');
    expect(signHyperswitch512(VECTOR.secret, VECTOR.body)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyHyperswitch512(VECTOR.secret, VECTOR.body, expected.toUpperCase())).toBe(true);
    expect(verifyHyperswitch512(VECTOR.secret, VECTOR.body, undefined)).toBe(false);
  });
});
