/**
 * metadata is one shape (Metadata in payments.ts) on every request that carries it: a key named `__proto__`, which
 * JSON.parse keeps as an own member and a zod record dropped without a word, is refused on each of them, naming it;
 * other keys that name Object.prototype members, and `__proto__` inside a value, are kept as sent.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import * as customers from './customers';
import * as mandates from './mandates';
import * as paymentMethods from './payment-methods';
import * as paymentOps from './payment-ops';
import * as payments from './payments';
import * as refunds from './refunds';
import * as subscriptions from './subscriptions';

/** Every request schema of these modules that takes a top-level metadata field. */
const EXPORTS: Record<string, unknown> = { ...customers, ...mandates, ...paymentMethods, ...paymentOps, ...payments, ...refunds, ...subscriptions };
const REQUESTS_WITH_METADATA = Object.entries(EXPORTS)
  .filter((entry): entry is [string, z.ZodType] => entry[0].endsWith('Request') && entry[1] instanceof z.ZodType)
  .filter(([, schema]) => {
    const issues = schema.safeParse({ metadata: { order: 'A-1' } }).error?.issues ?? [];
    return !issues.some((issue) => (issue.code === 'unrecognized_keys' && issue.keys.includes('metadata')) || issue.path[0] === 'metadata');
  });

describe('metadata keys', () => {
  test('the requests with metadata are found', () => {
    expect(REQUESTS_WITH_METADATA.map(([name]) => name).sort()).toEqual(
      expect.arrayContaining(['CreatePaymentRequest', 'UpdateMetadataRequest', 'CreateRefundRequest', 'UpdateRefundRequest', 'CreateCustomerRequest']),
    );
  });

  test.each(REQUESTS_WITH_METADATA)('%s refuses a metadata key named __proto__, naming it', (_name, schema) => {
    const result = schema.safeParse(JSON.parse('{"metadata": {"order": "A-1", "__proto__": {"admin": true}}}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues).toContainEqual(
      expect.objectContaining({ code: 'custom', path: ['metadata', '__proto__'], message: 'metadata key names may not be "__proto__"' }),
    );
  });

  test('keys that name Object.prototype members, and __proto__ inside a value, are kept as sent', () => {
    const sent = JSON.parse('{"constructor": "c", "toString": "t", "hasOwnProperty": "h", "nested": {"__proto__": {"x": 1}}}');
    const parsed = payments.Metadata.parse(sent);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(sent));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
