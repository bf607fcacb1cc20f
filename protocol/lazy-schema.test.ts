import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { ListDisputesQuery } from './api/disputes';
import { ListPaymentsQuery } from './api/payment-ops';
import { Country, CreatePaymentRequest, Currency, PaymentIdParam, PaymentMethodType, PaymentResponse } from './api/payments';
import { CreateRefundRequest } from './api/refunds';
import { ApiErrorBody } from './errors';
import { NextAction, PaymentStatus } from './payments';

describe('lazySchema', () => {
  it('builds its schema once, at its first use, and unwrap() gives that one schema', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ amount: z.int().min(0) });
    });
    expect(builds).toBe(0);
    expect(schema.safeParse({ amount: 5 }).success).toBe(true);
    expect(builds).toBe(1);
    const inner = schema.unwrap();
    expect(schema.unwrap()).toBe(inner);
    expect(inner.safeParse({ amount: 5 }).success).toBe(true);
    expect(builds).toBe(1);
  });

  it("gives the same schema through its clones' unwrap(), which zod's own would build again", () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ amount: z.int().min(0) });
    });
    const described = schema.describe('a described clone');
    const withMeta = schema.meta({ id: 'amount_only' });
    expect(described).not.toBe(schema);
    expect(described.unwrap()).toBe(schema.unwrap());
    expect(withMeta.unwrap()).toBe(schema.unwrap());
    expect(schema.optional().unwrap().unwrap()).toBe(schema.unwrap());
    expect(builds).toBe(1);
  });

  it('parses and fails as the schema it builds, with the same issues', () => {
    const build = () => z.strictObject({ amount: z.int().min(0), currency: z.enum(['USD', 'EUR']) });
    const lazy = lazySchema(build);
    for (const value of [{ amount: 1, currency: 'USD' }, { amount: -1, currency: 'USD' }, { amount: 1, currency: 'GBP', extra: true }, null]) {
      const [fromLazy, fromEager] = [lazy.safeParse(value), build().safeParse(value)];
      expect(fromLazy.success).toBe(fromEager.success);
      expect(fromLazy.error?.issues).toEqual(fromEager.error?.issues);
    }
  });

  it("leaves the protocol's request and response schemas unbuilt until they are used", () => {
    // This file imports the modules and uses nothing else of them: a schema built at import would be built here.
    const built = (schema: z.ZodLazy) => (schema._zod.def as { _cachedInner?: unknown })._cachedInner !== undefined;
    expect([CreatePaymentRequest, PaymentResponse, CreateRefundRequest].map(built)).toEqual([false, false, false]);
    expect(CreatePaymentRequest.safeParse({ amount: 100, currency: 'USD' }).success).toBe(true);
    expect(built(CreatePaymentRequest)).toBe(true);
    expect(built(PaymentResponse)).toBe(false);
  });

  it('leaves the enums and field schemas unbuilt, and the fields of the query objects routes are registered with unread, until they are used', () => {
    const unbuilt = (schema: z.ZodType) => schema instanceof z.ZodLazy && (schema._zod.def as { _cachedInner?: unknown })._cachedInner === undefined;
    expect([Currency, Country, PaymentMethodType, PaymentStatus, NextAction, ApiErrorBody, PaymentIdParam].map(unbuilt)).toEqual([true, true, true, true, true, true, true]);
    // The shape as written, before zod's first read replaces it with plain fields: every field a getter not yet run.
    const writtenShape = (schema: z.ZodObject) => (Object.getOwnPropertyDescriptor(schema._zod.def, 'shape')?.get as { raw?: object } | undefined)?.raw;
    const fieldsUnread = (schema: z.ZodObject) => Object.values(Object.getOwnPropertyDescriptors(writtenShape(schema) ?? {})).map((field) => field.get !== undefined);
    expect(fieldsUnread(ListPaymentsQuery)).toEqual(Array(9).fill(true));
    expect(new Set(fieldsUnread(ListDisputesQuery))).toEqual(new Set([true]));

    expect(ListPaymentsQuery.safeParse({ limit: '5', created: '2025-01-01T00:00:00Z' }).data).toEqual({ limit: 5, created: '2025-01-01T00:00:00Z' });
    expect(ListPaymentsQuery.safeParse({ limit: '0' }).error?.issues.map((issue) => issue.path)).toEqual([['limit']]);
    // Read once and kept: a parse steps through no getter.
    expect(ListPaymentsQuery.shape.limit).toBe(ListPaymentsQuery.shape.limit);
  });
});
