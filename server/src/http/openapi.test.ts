/**
 * /openapi.json against what the server does: which operations can answer 429 (the rate limits of
 * docs/security.md, as rate-limit.test.ts sends them), read from docs/authorization.md and RATE_LIMITED_ROUTES.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness';
import { passesAuthentication, readAuthorizationTable } from '../test-support/authorization-table';
import { RATE_LIMITED_ROUTES } from './rate-limit';

interface Operation {
  security?: unknown[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

describe('/openapi.json', () => {
  let h: Harness;
  let document: Document;
  const authorization = readAuthorizationTable();
  const rowOf = (method: string, path: string) => authorization.rows.find((row) => row.route === `${method.toUpperCase()} ${path}`);

  beforeAll(async () => {
    h = await createHarness('sqlite');
    document = (await (await h.app.request('/openapi.json')).json()) as Document;
  });
  afterAll(async () => h?.close());

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method, path, operation })));

  /** What rate-limit.test.ts shows answering 429: a refused key or session token counted, or a rate-limited surface. */
  function canAnswer429(method: string, path: string): boolean {
    const cells = rowOf(method, path)?.cells;
    if (cells === undefined) throw new Error(`no row for ${method} ${path} in docs/authorization.md`);
    const countsRefusedKeys = cells['unknown key'] === 'ERR_1002';
    const countsRefusedSessions = cells['operator session + step-up'] === 'allowed' && !passesAuthentication(cells['no key']);
    const concrete = path.replace(/\{[^}]+\}/g, 'x_1');
    const onSurface = RATE_LIMITED_ROUTES.some(
      (row) =>
        (row.method === 'ALL' || row.method === method.toUpperCase()) &&
        new RegExp(`^${row.path.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`).test(concrete),
    );
    return countsRefusedKeys || countsRefusedSessions || onSurface;
  }

  test('every operation that takes a key or an operator session declares it (security), and no other does', () => {
    const undeclared: string[] = [];
    const declaredButOpen: string[] = [];
    for (const { method, path, operation } of operations()) {
      const cells = rowOf(method, path)?.cells;
      if (cells === undefined) throw new Error(`no row for ${method} ${path} in docs/authorization.md`);
      const takesCredential = !passesAuthentication(cells['no key']);
      const declared = (operation.security?.length ?? 0) > 0;
      if (takesCredential && !declared) undeclared.push(`${method.toUpperCase()} ${path}`);
      if (declared && !takesCredential) declaredButOpen.push(`${method.toUpperCase()} ${path}`);
    }
    expect(undeclared).toEqual([]);
    expect(declaredButOpen).toEqual([]);
  });

  test('every operation that can answer 429 documents it, and no other does', () => {
    const missing: string[] = [];
    const extra: string[] = [];
    for (const { method, path, operation } of operations()) {
      const documented = '429' in operation.responses;
      const expected = canAnswer429(method, path);
      if (expected && !documented) missing.push(`${method.toUpperCase()} ${path}`);
      if (documented && !expected) extra.push(`${method.toUpperCase()} ${path}`);
    }
    expect(missing).toEqual([]);
    expect(extra).toEqual([]);
    // Sanity: the derivation is not empty either way.
    expect(operations().filter(({ operation }) => '429' in operation.responses).length).toBeGreaterThan(80);
    expect(operations().some(({ method, path }) => method === 'get' && path === '/health')).toBe(true);
  });

  test('the 429 answer is the error envelope with Retry-After', () => {
    const answer = document.paths['/payments/{payment_id}/confirm']!['post']!.responses['429'];
    expect(answer?.headers).toEqual({ 'Retry-After': { description: expect.any(String), schema: { type: 'integer', minimum: 1 } } });
    expect(answer?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
    expect(document.paths['/v1/sessions']!['post']!.responses['429']).toEqual(answer);
    expect(document.paths['/health']!['get']!.responses['429']).toBeUndefined();
    expect(document.paths['/v1/scopes']!['get']!.responses['429']).toBeUndefined();
  });
});
