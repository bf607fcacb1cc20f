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

  test.each([
    ['a mandate amount\'s metadata', 'CreatePaymentRequest', '{"mandate_data": {"mandate_type": {"single_use": {"amount": 100, "currency": "INR", "metadata": {"__proto__": 1}}}}}', ['mandate_data', 'mandate_type', 'single_use', 'metadata', '__proto__']],
    ['frm_metadata', 'CreatePaymentRequest', '{"frm_metadata": {"__proto__": {"a": 1}}}', ['frm_metadata', '__proto__']],
    ['feature_metadata', 'UpdateMetadataRequest', '{"metadata": {}, "feature_metadata": {"__proto__": 1}}', ['feature_metadata', '__proto__']],
    ['a refund\'s merchant_connector_details', 'CreateRefundRequest', '{"payment_id": "pay_x", "merchant_connector_details": {"__proto__": 1}}', ['merchant_connector_details', '__proto__']],
    ['a customer\'s address', 'CreateCustomerRequest', '{"address": {"city": "Pune", "__proto__": {"x": 1}}}', ['address', '__proto__']],
  ])('the other free-form objects refuse a key named __proto__ too: %s', (_what, request, body, path) => {
    const result = (EXPORTS[request] as z.ZodType).safeParse(JSON.parse(body));
    expect(result.error?.issues).toContainEqual(expect.objectContaining({ code: 'custom', path, message: 'key names may not be "__proto__"' }));
  });

  test('keys that name Object.prototype members, and __proto__ inside a value, are kept as sent', () => {
    const sent = JSON.parse('{"constructor": "c", "toString": "t", "hasOwnProperty": "h", "nested": {"__proto__": {"x": 1}}}');
    const parsed = payments.Metadata.parse(sent);
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(sent));
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
