/**
 * Property-based robustness test. The operations come from the app's own /openapi.json, so routes added later are
 * fuzzed without touching this file. Each run sends one operation with generated and mutated input: bodies built
 * from the operation's schema with junk swapped in (wrong types, huge and unicode strings, numbers as strings,
 * negative and float amounts, null, arrays, nested junk), raw bodies (invalid JSON, duplicate keys, __proto__ and
 * constructor keys, deep nesting, non-objects), odd content types, path parameters and query strings, valid and
 * invalid API keys and Idempotency-Keys. Properties: never a 5xx; every non-2xx body is exactly the envelope
 * `{"error": {type, message, code, field_name?}}` with a catalog code, the catalog's type and the catalog's status;
 * nothing pollutes Object.prototype.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../../protocol/errors';
import type { Engine } from '../storage/database';
import { createHarness, type Harness } from '../test-support/harness';
import { forEachEngine } from '../test-support/engines';

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  bodySchema: Schema | undefined;
}

const HUGE = 'x'.repeat(20_000);
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    -100,
    1.5,
    -0.01,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    ' ',
    '12',
    '-5',
    '1e3',
    'null',
    'true',
    HUGE,
    '\u0000',
    '\ud800',
    '😀👍🏽',
    'ａｍｏｕｎｔ',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '4242424242424242',
    '4242 4242 4242 4242',
    [],
    {},
    [null],
    { __proto__: null },
    JSON.parse('{"__proto__": {"polluted": 1}}'),
    { constructor: { prototype: { polluted: 1 } } },
    { a: { b: { c: { d: { e: [1, 'two', { f: null }] } } } } },
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

function resolve(schema: unknown, components: Record<string, Schema>): Schema {
  let current = (schema ?? {}) as Schema;
  for (let i = 0; i < 10 && typeof current['$ref'] === 'string'; i += 1) {
    current = components[(current['$ref'] as string).split('/').pop() ?? ''] ?? {};
  }
  return current;
}

/** Values that follow the schema (roughly), with junk swapped in at any depth. */
function fromSchema(schema: unknown, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, components);
  if (depth > 4) return junk;
  const alternatives = (s['anyOf'] ?? s['oneOf'] ?? s['allOf']) as unknown[] | undefined;
  let shaped: fc.Arbitrary<unknown>;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    shaped = fc.oneof(...alternatives.map((alt) => fromSchema(alt, components, depth + 1)));
  } else if (Array.isArray(s['enum'])) {
    shaped = fc.constantFrom(...(s['enum'] as unknown[]));
  } else {
    const type = Array.isArray(s['type']) ? (s['type'] as string[])[0] : (s['type'] as string | undefined);
    switch (type) {
      case 'string':
        shaped = fc.string({ minLength: Number(s['minLength'] ?? 0), maxLength: Math.min(Number(s['maxLength'] ?? 30), 300) });
        break;
      case 'integer':
        shaped = fc.oneof(fc.integer({ min: -10, max: 1_000_000 }), fc.constantFrom(0, 100, 10_000, Number.MAX_SAFE_INTEGER));
        break;
      case 'number':
        shaped = fc.double({ noNaN: true });
        break;
      case 'boolean':
        shaped = fc.boolean();
        break;
      case 'array':
        shaped = fc.array(fromSchema(s['items'], components, depth + 1), { maxLength: 3 });
        break;
      case 'object':
      default: {
        const properties = (s['properties'] ?? {}) as Record<string, unknown>;
        const names = Object.keys(properties);
        if (names.length === 0) shaped = fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 3 });
        else {
          const record: Record<string, fc.Arbitrary<unknown>> = {};
          for (const name of names) record[name] = fromSchema(properties[name], components, depth + 1);
          shaped = fc.record(record, { requiredKeys: [] });
        }
      }
    }
  }
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: junk });
}

const RAW_BODIES = [
  '',
  '   ',
  '{',
  '{"amount": }',
  '{"amount": 100,}',
  "{'amount': 100}",
  '[]',
  'null',
  '"a string"',
  '123',
  'true',
  '{"amount": 100, "amount": "100"}',
  '{"currency": "INR", "currency": "USD", "amount": 100}',
  '{"__proto__": {"polluted": true}, "amount": 100, "currency": "INR"}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '{"amount": 1e400, "currency": "INR"}',
  '{"amount": 100.0, "currency": "INR"}',
  '{"amount": -0, "currency": "INR"}',
  '\ufeff{"amount": 100, "currency": "INR"}',
  '{"amount": 100, "currency": "INR"}\u0000',
  `{"metadata": ${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`,
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  `{"payment_method_data": ${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  `{"description": "${HUGE}${HUGE}"}`,
  '{"amount": "\\ud800", "currency": "INR"}',
];
const rawBodies = fc.constantFrom(...RAW_BODIES);

const contentTypes = fc.constantFrom<string | undefined>(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json',
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zzz',
  'application/json; charset=latin1',
  'garbage',
);

const pathValues = fc.oneof(
  fc.constantFrom('EXISTING', 'pay_doesnotexist000000000', 'a', 'x'.repeat(62), 'x'.repeat(63), '..', '%2e%2e', '%zz', '%E0%A4%A', '%00', 'caf%C3%A9', '😀', ' ', 'null'),
  fc.string({ maxLength: 70 }).map((value) => encodeURIComponent(value)),
);

const queryStrings = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?client_secret=', '?client_secret=x', '?force_sync=true', '?force_sync=maybe', '?a=1&a=2', '?%zz=1', '?__proto__[x]=1', `?q=${HUGE}`),
  fc
    .array(fc.tuple(fc.constantFrom('client_secret', 'force_sync', 'limit', 'unknown', '__proto__', 'accepted_countries'), fc.string({ maxLength: 20 })), { maxLength: 3 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`)),
);

const idempotencyKeys = fc.constantFrom<string | undefined>(undefined, undefined, 'fuzz-key-1', 'fuzz-key-2', '"quoted-key"', 'k'.repeat(256), ' ', 'ü');

forEachEngine('Fuzz of every operation', (engine) => {
  // Fewer runs on PostgreSQL: each request there costs a round trip.
  // RAIL_FUZZ_RUNS raises the count for the long runs of docs/reliability.md.
  const numRuns = Number(process.env['RAIL_FUZZ_RUNS'] ?? (engine === 'sqlite' ? 600 : 150));
  let h: Harness;
  let operations: Operation[];
  let existingPaymentId: string;

  beforeAll(async () => {
    h = await createHarness(engine);
    const spec = (await (await h.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content?: Record<string, { schema: Schema }> } }>>;
      components?: { schemas?: Record<string, Schema> };
    };
    operations = [];
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const parameters = op.parameters ?? [];
        operations.push({
          method: method.toUpperCase(),
          path,
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
          bodySchema: op.requestBody?.content?.['application/json']?.schema,
        });
      }
    }
    components = spec.components?.schemas ?? {};
    const created = await h.app.request('/payments', {
      method: 'POST',
      headers: { 'api-key': h.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100, currency: 'INR' }),
    });
    existingPaymentId = ((await created.json()) as { payment_id: string }).payment_id;
  });
  let components: Record<string, Schema> = {};

  afterAll(async () => {
    await h?.close();
  });

  async function check(response: Response, context: string): Promise<void> {
    if (response.status >= 500) throw new Error(`${response.status} for ${context}: ${await response.text()}`);
    if (response.status >= 200 && response.status < 300) return;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`non-JSON ${response.status} body for ${context}: ${text.slice(0, 200)}`);
    }
    expect(Object.keys(body as object), context).toEqual(['error']);
    const error = (body as { error: Record<string, unknown> }).error;
    const keys = Object.keys(error).sort();
    expect(keys.filter((k) => !['code', 'field_name', 'message', 'type'].includes(k)), context).toEqual([]);
    expect(typeof error['message'], context).toBe('string');
    if ('field_name' in error) expect(typeof error['field_name'], context).toBe('string');
    const code = error['code'] as ErrorCode;
    expect(Object.keys(ERROR_CATALOG), context).toContain(code);
    expect(response.status, `${context} -> ${code}`).toBe(ERROR_CATALOG[code].status);
    expect(error['type'], context).toBe(ERROR_CATALOG[code].type);
    expect(({} as Record<string, unknown>)['polluted'], context).toBeUndefined();
  }

  test('every raw body on every operation, with and without an Idempotency-Key, twice: no 5xx, only catalog errors', async () => {
    // Operations run side by side (each one's requests in order, so a repeated Idempotency-Key is a replay).
    await Promise.all(
      operations.map(async (op) => {
        const path = op.path.replace(/\{[^}]+\}/g, existingPaymentId);
        for (const [i, body] of RAW_BODIES.entries()) {
          for (const idempotencyKey of [undefined, `raw-${op.method}-${path}-${i}`]) {
            for (let round = 0; round < 2; round += 1) {
              const headers: Record<string, string> = { 'api-key': h.secretKey, 'content-type': 'application/json' };
              if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
              const hasBody = op.method !== 'GET';
              const response = await h.app.request(path, { method: op.method, headers, ...(hasBody ? { body } : {}) });
              await check(response, `${op.method} ${path} raw#${i} key=${String(idempotencyKey)}`);
            }
          }
        }
      }),
    );
  }, 120_000);

  test(`${numRuns} generated requests over every operation in /openapi.json: no 5xx, only catalog errors`, async () => {
    expect(operations.length).toBeGreaterThan(0);
    const requestArb = fc
      .nat({ max: 1_000 })
      .chain((index) => {
        const op = operations[index % operations.length] as Operation;
        const bodyArb = fc.oneof(
          { weight: 3, arbitrary: (op.bodySchema ? fromSchema(op.bodySchema, components) : junk).map((value) => JSON.stringify(value) ?? '') },
          { weight: 1, arbitrary: rawBodies },
          { weight: 1, arbitrary: fc.constant(undefined) },
        );
        return fc.record({
          op: fc.constant(op),
          method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST', 'HEAD') }),
          params: fc.array(pathValues, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
          query: queryStrings,
          body: bodyArb,
          contentType: contentTypes,
          apiKey: fc.constantFrom<string | undefined>('SECRET', 'SECRET', 'PUBLISHABLE', undefined, 'rail_full_test_short', 'Bearer SECRET', 'garbage', 'rail_full_live_' + 'A'.repeat(40)),
          idempotencyKey: idempotencyKeys,
        });
      });
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        let path = r.op.path;
        for (const [i, name] of r.op.pathParams.entries()) {
          const value = r.params[i] === 'EXISTING' ? existingPaymentId : (r.params[i] ?? '');
          path = path.replace(`{${name}}`, value);
        }
        const headers: Record<string, string> = {};
        if (r.apiKey === 'SECRET') headers['api-key'] = h.secretKey;
        else if (r.apiKey === 'PUBLISHABLE') headers['api-key'] = h.publishableKey;
        else if (r.apiKey === 'Bearer SECRET') headers['authorization'] = `Bearer ${h.secretKey}`;
        else if (r.apiKey !== undefined) headers['api-key'] = r.apiKey;
        if (r.contentType !== undefined) headers['content-type'] = r.contentType;
        if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
        const hasBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
        const url = `http://127.0.0.1${path}${r.query}`;
        const response = await h.app.request(url, { method: r.method, headers, ...(hasBody ? { body: r.body } : {}) });
        if (r.method === 'HEAD') {
          expect(response.status).toBeLessThan(500);
          return;
        }
        await check(response, `${r.method} ${path}${r.query.slice(0, 80)} ct=${String(r.contentType)} body=${String(r.body).slice(0, 120)}`);
      }),
      { numRuns, seed: Number(process.env['RAIL_FUZZ_SEED'] ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
  }, 50_000 + numRuns * 20);
});
